#!/bin/bash
# Two tasks writing systrace-style begin and end marks, nested, to trace_marker: made
# print-marks.dat (the latency preset print's fixture), as
#   ringside-cli record -e sched:sched_process_exec -o print-marks.dat -- bash print-marks.sh
# The marks go to the capture's own instance, whose trace_marker this finds.
M=$(ls -d /sys/kernel/tracing/instances/ringside-capture-*/trace_marker | head -1)
worker() {
  for i in 1 2 3 4 5 6; do
    echo "B|$$|frame $i" > $M
    echo "B|$$|draw" > $M
    sleep 0.00$i
    echo "E|$$" > $M
    echo "B|$$|upload" > $M
    sleep 0.002
    echo "E|$$" > $M
    echo "E|$$" > $M
    echo "note: not a mark $i" > $M
  done
}
echo "E|$$" > $M           # an end whose begin came before the recording
worker &
worker &
wait
echo "B|$$|left open" > $M  # a begin the recording ends before closing
