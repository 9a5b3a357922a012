#!/bin/sh
# check_device_knob.sh PROBE — TSGEMM_DEVICE through the library itself: a malformed list gets
# exactly one warning line on stderr at the default TSGEMM_LOG and the process carries on (PROBE,
# gpu_probe, exits 0 with a GPU and 77 without: both are fine here); well-formed lists ("0,0",
# "all") get no warning.
probe=$1
out=$(TSGEMM_DEVICE=0,x "$probe" 2>&1); rc=$?
echo "$out"
if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then echo "FAIL: exit status $rc"; exit 1; fi
n=$(printf '%s\n' "$out" | grep -c '^tsgemm: TSGEMM_DEVICE="0,x" is not a device ordinal')
if [ "$n" -ne 1 ]; then echo "FAIL: $n warning lines for TSGEMM_DEVICE=0,x, want 1"; exit 1; fi
for good in 0,0 all 0; do
  out=$(TSGEMM_DEVICE=$good "$probe" 2>&1); rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then echo "FAIL: TSGEMM_DEVICE=$good: exit status $rc"; exit 1; fi
  if printf '%s\n' "$out" | grep -q 'TSGEMM_DEVICE=.*ignored'; then
    echo "FAIL: TSGEMM_DEVICE=$good warned: $out"; exit 1; fi
done
echo "ok"
