#!/bin/sh
# evals-hook.sh: the fast entry of the @evals/hooks capture hook (what Claude Code runs for each
# event). Usage: dash /abs/path/evals-hook.sh [NODE]
#
# Starting Node for every hook event costs ~35 ms; this POSIX shell script costs a few. It only
# appends the input, as Claude Code sent it, to <root>/test-output/<TEST_RUN_ID>/events.jsonl as a
# raw line (version 2: {"version":2,"captured_at","run_id","seq","pid","event":<input>}); readers
# validate it and cut its depth (readCapturedEvents in @evals/core). Anything unusual goes to the
# Node hook (dist/evals-hook.cjs, run with NODE, default `node`), which handles every case: an unset
# or unsafe TEST_RUN_ID, a missing or linked run folder, an input that is large, multi-line or not
# shaped like a hook input, a shell other than dash, a failed write. Like the Node hook it prints
# nothing and exits 0, whatever happens.
#
# Whole lines: dash's printf builtin hands a string to one write(2) on the O_APPEND descriptor of
# `>>`. bash, zsh, ksh and busybox printf go through stdio, which may split a large line, so under
# those shells the Node hook does the writing.

[ "$TEST_MODE" = true ] || exit 0
exec >/dev/null 2>&1
node=${1:-node}
hook=${0%/*}/../dist/evals-hook.cjs
payload=
full() {
  # The Node hook, with the input on stdin: what was read, then the rest.
  if [ -z "$payload" ]; then "$node" "$hook"; else { printf '%s' "$payload"; cat; } | "$node" "$hook"; fi
  exit 0
}
[ -z "${BASH_VERSION-}${ZSH_VERSION-}${KSH_VERSION-}${BB_ASH_VERSION-}${YASH_VERSION-}" ] || full
[ ! -t 0 ] || full

id=${TEST_RUN_ID-}
case $id in '' | . | *..* | *[!A-Za-z0-9._-]*) full ;; esac
[ ${#id} -le 128 ] || full

root=${EVALS_OUTPUT_DIR:-${CLAUDE_PROJECT_DIR:-$PWD}}
case $root in /*) ;; *) root=$PWD/$root ;; esac
dir=$root/test-output/$id
[ ! -h "$root/test-output" ] || full
[ -d "$dir" ] || [ -h "$dir" ] || mkdir -p "$dir" || full
# Never through a link out of the root: the Node hook refuses and logs those.
[ ! -h "$root/test-output" ] && [ ! -h "$dir" ] && [ ! -h "$dir/events.jsonl" ] && [ -d "$dir" ] || full
# Room kept for hook-errors.log on a full disk (the Node hook frees it to log), gone at Stop.
reserve=$dir/.hook-reserve
[ -e "$reserve" ] || [ -h "$reserve" ] || printf '%16384s' '' >"$reserve"

# Inputs over the field limit go to the Node hook, which cuts large fields.
limit=${EVALS_HOOK_MAX_FIELD_BYTES:-262144}
case $limit in '' | *[!0-9]* | 0*) limit=262144 ;; esac
[ ${#limit} -le 12 ] || limit=262144
nl='
'
cr='
' # a carriage return
# One command substitution reads the input, then the clock: `head` keeps at most limit + 1 bytes
# and `date`, run in place of the subshell (one process start less per event, which is what a
# loaded machine makes costly), prints a line after them. That line also keeps the input's
# trailing newlines, which $(...) would strip: what was read goes on to the Node hook as is. C
# locale: neither loads locale files.
input=$(LC_ALL=C head -c $((limit + 1)); LC_ALL=C exec date -u '+%n@evals-clock %Y-%m-%dT%H:%M:%S %s %N')
# No clock line (no `date`): the Node hook takes what was read (only its trailing newlines lost).
case $input in *"$nl@evals-clock "*) ;; *) payload=$input full ;; esac
payload=${input%"$nl@evals-clock "*}
[ ${#payload} -le "$limit" ] || full

event=${payload%"$nl"}
case $event in *"$nl"* | *"$cr"*) full ;; esac
case $event in '{"'*'}') ;; *) full ;; esac
case $event in *'"hook_event_name":"'*) ;; *) full ;; esac

# seq: microseconds of the real-time clock (the Node hook uses the same clock).
set -- ${input##*"$nl@evals-clock "}
case ${3-} in [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;; *) full ;; esac
ns=$3
line="{\"version\":2,\"captured_at\":\"$1.${ns%??????}Z\",\"run_id\":\"$id\",\"seq\":$2${ns%???},\"pid\":$$,\"event\":$event}
"
if ! printf '%s' "$line" >>"$dir/events.jsonl"; then
  # A full disk may have left part of the line: the Node hook removes it, retries, and logs.
  EVALS_HOOK_UNFINISHED_PID=$$
  export EVALS_HOOK_UNFINISHED_PID
  full
fi
# The run may be over (SessionEnd is not registered by default): the next event makes it again.
case $event in *'"hook_event_name":"Stop"'* | *'"hook_event_name":"SessionEnd"'*) rm -f "$reserve" ;; esac
exit 0
