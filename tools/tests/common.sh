# Helpers the kit's end-to-end tests (tools/tests/*) share; each test sources this file.
#   ok TEXT / fail TEXT          a check's outcome (fail counts; `finish` ends the test with them)
#   expect STATUS TEXT -- CMD    the command exits STATUS and says TEXT
#   expect_within S STATUS TEXT -- CMD   the same, and it ends within S seconds (it is stopped there)
#   copy_kit SOURCE DEST         the kit's files (git's, where SOURCE is a checkout), without builds
# `work` (the test's scratch folder) is left out of the commands shown.

failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
finish() {  # [what passed]
  ((failures == 0)) || { echo "$failures failures"; exit 1; }
  echo "${1:-all checks passed}"
}

expect() { expect_within 0 "$@"; }

expect_within() {  # seconds (0: no limit) status text -- command...
  local limit=$1 status=$2 text=$3 out got shown start=$SECONDS took
  shift 4
  if ((limit > 0)); then
    out=$(timeout -k 5 "$limit" "$@" 2>&1)
  else
    out=$("$@" 2>&1)
  fi
  got=$?
  took=$((SECONDS - start))
  shown="${*/#PATH=*/PATH=fake-bin:...}"
  shown=${shown//${work:-\/nowhere}\//}
  # timeout's own 124 or 137 only when the limit has passed: a command may exit 124 itself (a
  # watchdog's time limit, which ./lab bench passes on).
  if ((limit > 0 && (got == 124 || got == 137) && took >= limit)); then
    fail "$shown did not end within $limit s; its last output: $(tail -5 <<<"$out")"
  elif [[ $got != "$status" ]]; then
    fail "$shown exited $got, expected $status; it said: $out"
  elif [[ $out != *"$text"* ]]; then
    fail "$shown did not say '$text'; it said: $out"
  else
    local timing=""
    ((limit > 0)) && timing=", in $took s (limit $limit s)"
    ok "$shown ($status: $text$timing)"
  fi
  last_output=$out
}

copy_kit() {  # source dest
  mkdir -p "$2"
  if [[ $(git -C "$1" rev-parse --show-toplevel 2>/dev/null) == "$1" ]]; then
    (cd "$1" && git ls-files -z --cached --others --exclude-standard |
      xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh | xargs -0 cp --parents -t "$2")
  else
    (cd "$1" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$2"
  fi
}
