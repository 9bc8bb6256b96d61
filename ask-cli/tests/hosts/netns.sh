#!/bin/sh
# Runs a host with the stand-in model beside it, for ask-cli/tests/it/hosts.rs. Meant to run inside a
# network namespace of its own (`unshare -rn sh netns.sh …`): it brings loopback up, so the
# namespace reaches 127.0.0.1 and nothing else, starts model.py on $MODEL_PORT with its records in
# $MODEL_LOG, runs `timeout $HOST_LIMIT COMMAND…` in $HOST_CWD, stops the model, and exits with the
# host's status (124 when the host ran out of time). With HOST_FOREGROUND set, the host stays in
# the terminal's foreground process group (`timeout --foreground`), as an interactive host must.
#
# Usage: netns.sh COMMAND ARGS...
# Environment: HOSTS_PYTHON, MODEL_PORT, MODEL_LOG, HOST_LIMIT, HOST_CWD, HOST_FOREGROUND
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ip link set lo up
"$HOSTS_PYTHON" "$here/model.py" "$MODEL_LOG" > "$MODEL_LOG/port" 2> "$MODEL_LOG/model.err" &
model=$!
tries=0
until [ -s "$MODEL_LOG/port" ]; do
    tries=$((tries + 1))
    if [ "$tries" -gt 200 ] || ! kill -0 "$model" 2>/dev/null; then
        echo "netns.sh: the stand-in model did not start:" >&2
        cat "$MODEL_LOG/model.err" >&2
        exit 125
    fi
    sleep 0.05
done
cd "$HOST_CWD"
status=0
if [ -n "${HOST_FOREGROUND:-}" ]; then
    timeout --foreground -k 5 "$HOST_LIMIT" "$@" || status=$?
else
    timeout -k 5 "$HOST_LIMIT" "$@" || status=$?
fi
kill "$model" 2>/dev/null || true
exit "$status"
