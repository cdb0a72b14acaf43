#!/bin/sh
# t-ddprank-secret.sh: the job's secret as ddprank(1) takes it: from
# DDPRANK_SECRET (checked, never shown, dropped before exec), or for a
# directory exchange from ~/.ddprank/key (used only when no one else can
# read or replace it); the automatic port derived from it as documented.
. "$(dirname "$0")/lib.sh"

[ -x "$DDPRANK" ] || skip "ddprank not built"
K=000102030405060708090a0b0c0d0e0f

# A bad secret is a usage error that does not echo it.
out=$(env -i DDPRANK_SECRET=0123abz SLURM_JOB_ID=1 "$DDPRANK" port 2>&1)
expect_eq "bad secret: exit" "$?" 2
expect_eq "bad secret: message" "$out" \
    "ddprank: DDPRANK_SECRET: expected 32 to 128 hex digits, an even number"
out=$(env -i DDPRANK_SECRET="${K}zz" SLURM_JOB_ID=1 "$DDPRANK" port 2>&1)
expect_eq "not hex: message" "$out" "ddprank: DDPRANK_SECRET: not hex digits"

# The port of the man page's formula, computed here with Python's hmac
# module when there is a Python, else the value it gave once.
want=21505
if command -v python3 >/dev/null 2>&1; then
	want=$(python3 -c '
import hashlib, hmac, sys
m = hmac.new(bytes.fromhex(sys.argv[1]), b"ddprank port\x00123456 -1 -1",
             hashlib.sha256).digest()
print(20000 + int.from_bytes(m[:8], "big") % 10000)' "$K")
fi
expect_eq "port from the secret" \
    "$(env -i DDPRANK_SECRET="$K" SLURM_JOB_ID=123456 "$DDPRANK" port)" "$want"
expect_eq "port without a secret" \
    "$(env -i SLURM_JOB_ID=123456 "$DDPRANK" port)" 23456

# exec leaves the secret out of the command's environment.
# shellcheck disable=SC2016 # the command expands it
expect_eq "exec drops the secret" \
    "$(env -i PATH="$PATH" DDPRANK_SECRET="$K" SLURM_JOB_ID=1 \
    SLURM_JOB_NODELIST="$(hostname)" MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" exec --port 29557 -- sh -c 'echo "${DDPRANK_SECRET-unset}"')" \
    unset

# The key file of a directory exchange.
mkdir -p "$T/h"
chmod 0755 "$T/h"
xch() {
	env -i PATH="$PATH" HOME="$T/h" CCP_JOBID=5 CCP_TASKID=1 \
	    "$DDPRANK" env --exchange "dir:$T/x" --nnodes 1 --iface '^lo$' "$@"
}
out=$(xch --port 29558 2>&1)
expect_eq "no key file: a plain exchange" "$?" 0
mkdir -m 0700 "$T/h/.ddprank"
printf '%s\n' "$K" >"$T/h/.ddprank/key"
chmod 0644 "$T/h/.ddprank/key"
out=$(xch --port 29558 2>&1)
expect_eq "readable key file: exit" "$?" 7
expect_eq "readable key file: message" "$out" \
    "ddprank: $T/h/.ddprank/key: mode 0644: readable or writable by others; chmod go="
chmod 0600 "$T/h/.ddprank/key"
expect_eq "key file: its port" "$(xch | sed -n 's/^export MASTER_PORT=//p')" \
    "$(env -i DDPRANK_SECRET="$K" CCP_JOBID=5 "$DDPRANK" port)"
expect_eq "key file: the run directory is gone" "$(ls -A "$T/x")" ""
finish
