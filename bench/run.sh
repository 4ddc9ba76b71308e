#!/usr/bin/env bash
# futurerun's benchmark: the same work done by futurerun, xargs -P, GNU parallel and a C floor,
# run in interleaved rounds (A B C A B C ...) so that a noisy machine slows all alike; the figures
# are medians of per-round ratios.
#
# usage: bench/run.sh FUTURERUN_BINARY
#   QUICK=1   only the per-job cost against xargs, and of the portable exit watcher against pidfd
#             (< 1 minute); exits 1 if futurerun with a shell a job is slower than xargs
#   DEPS=1    only the cost of jobs that wait for jobs (a chain, and a root with many dependants)
#   START=1   only start-up: the stripped binary's --version, and one job, against sh -c true
#   PIPE=1    only --pipe and --pipe-part on PIPE_MIB (1024) MiB of text, against cat | wc -l and
#             GNU parallel's --pipe and --pipepart
#   SLURM=1   only jobs as Slurm steps: SLURM_N (1000) trivial jobs in a 4-CPU allocation of a private
#             one-node cluster, --slurm and --slurm-slots against parallel -j4 srun --exact -n1 -c1
#             (as root)
#   REMOTE=1  only jobs on another host: 40 trivial jobs at -j4 over ssh, against GNU parallel -M -S
#             and bare ssh sessions, on a private sshd at 127.0.0.2 (as root: openssh-server)
#   GNU=1     only GNU's grammar: GNU_N (2000) trivial jobs, futurerun --gnu against futurerun's own
#             grammar and GNU parallel (Debian's, and 20260522 from ../shared/bench/gnu-parallel)
#   FAST=1    only trivial jobs against GNU parallel 20260522's --fast: FAST_N (20000) `echo {}` and
#             FAST_N/4 `/bin/true {}`, beside GNU's default mode, xargs -P and the C capture floor
#             (bench/c/capture_floor.c: each job captured as futurerun does); then 1,000,000 `echo`
#             jobs (FAST_MILLION) for their time and peak memory
#   CACHE=1   only --cache: CACHE_N (1000) jobs, each gzip of an input file of its own, run
#             cold (an empty cache) and warm (every entry there: no process starts), beside the
#             same jobs under xargs -P
#   N=5000 ROUNDS=5 J=2 BIG=100000   sizes for the full run (several minutes, GNU parallel is most)
set -euo pipefail
FR=$(realpath "${1:?usage: bench/run.sh FUTURERUN_BINARY}")
HERE=$(cd "$(dirname "$0")" && pwd)
QUICK=${QUICK:-0}
N=${N:-$([[ $QUICK == 1 ]] && echo 2000 || echo 5000)}
ROUNDS=${ROUNDS:-$([[ $QUICK == 1 ]] && echo 3 || echo 5)}
J=${J:-2}
BIG=${BIG:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/futurerun-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# need COMMAND PACKAGE: installs PACKAGE with apt-get (as root, updating the lists once) if COMMAND is missing.
updated=0
need() {
  command -v "$1" >/dev/null || [[ $(id -u) != 0 ]] && return 0
  apt-get install -y -qq "$2" >/dev/null 2>&1 && return 0
  [[ $updated == 1 ]] || { apt-get update -qq >/dev/null 2>&1 || true; updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 || echo "# could not install $2: its figures are left out"
}
[[ -x /usr/bin/time ]] || need /usr/bin/time time
need gcc gcc
[[ $QUICK == 1 ]] || need parallel parallel
FLOOR=$WORK/spawn_floor
gcc -O2 -o "$FLOOR" "$HERE/c/spawn_floor.c"

# measure LABEL COMMAND: runs COMMAND once under /usr/bin/time, appends "LABEL round wall rssKiB cpu".
# The wall time is taken around COMMAND alone, to the microsecond (GNU time's is in 10 ms steps).
measure() {
  /usr/bin/time -f "%M %U %S" -o "$WORK/t" bash -c "s=\$EPOCHREALTIME; $2; rc=\$?; echo \$s \$EPOCHREALTIME >$WORK/w; exit \$rc" \
    >/dev/null 2>"$WORK/err" || { echo "$1 failed:"; head -3 "$WORK/err"; }
  echo "$1 $round $(awk '{ printf "%.6f ", $2 - $1 }' "$WORK/w")$(awk '{ print $1, $2 + $3 }' "$WORK/t")" >>"$WORK/data"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall() { awk -v L="$1" '$1 == L { print $3 }' "$WORK/data" | median; }
rss() { awk -v L="$1" '$1 == L { print $4 / 1024 }' "$WORK/data" | median; }
cpu() { awk -v L="$1" '$1 == L { print $5 }' "$WORK/data" | median; }
# per-round ratios of field F (3 wall, 5 CPU) of A to B
ratios() { awk -v A="$1" -v B="$2" -v F="${3:-3}" '$1 == A { a[$2] = $F } $1 == B { b[$2] = $F } END { for (r in a) if (b[r] > 0) print a[r] / b[r] }' "$WORK/data"; }
ratio() { ratios "$@" | median; }
spread() { ratios "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

# rounds LABEL=COMMAND ...: every command once per round, interleaved, after one warm-up round.
rounds() {
  : >"$WORK/data"
  for ((round = 0; round <= ROUNDS; round++)); do
    export round
    for spec in "$@"; do measure "${spec%%=*}" "${spec#*=}"; done
  done
  awk '$2 != 0' "$WORK/data" >"$WORK/counted" && mv "$WORK/counted" "$WORK/data"   # not the warm-up round
}

echo "# futurerun bench  $(date -u +%FT%TZ)  $(nproc) cores  $(uname -r)  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $FR  rounds=$ROUNDS  J=$J"

# Jobs that wait for jobs, against the same jobs without headers: 2000 in one chain at -j1 (each
# after the one before), and 2000 after one root at -j2.
deps() {
  local n=2000
  seq "$n" | sed 's/^/true /' >"$WORK/plain"
  { echo "@j1 true"; seq 2 "$n" | awk '{ printf "@j%d after=j%d true\n", $1, $1 - 1 }'; } >"$WORK/chain"
  { echo "@root true"; seq 2 "$n" | awk '{ printf "@d%d after=root true\n", $1 }'; } >"$WORK/fan"
  echo
  echo "## jobs that wait for jobs: $n trivial jobs, with headers and without"
  rounds "plain-j1=$FR -q -j1 < $WORK/plain" "chain-j1=$FR -q -j1 < $WORK/chain" \
    "plain-j2=$FR -q -j2 < $WORK/plain" "fan-j2=$FR -q -j2 < $WORK/fan"
  echo "a chain (each after the one before), -j1 / no headers  $(ratio chain-j1 plain-j1)  (rounds $(spread chain-j1 plain-j1))"
  echo "all after one root, -j2 / no headers                  $(ratio fan-j2 plain-j2)  (rounds $(spread fan-j2 plain-j2))"
  echo "peak RSS: chain $(rss chain-j1) MiB, plain $(rss plain-j1) MiB; fan $(rss fan-j2) MiB, plain $(rss plain-j2) MiB"
}
if [[ ${DEPS:-0} == 1 ]]; then deps; exit 0; fi

# Start-up, 300 runs in a row of each: the binary as shipped (stripped, as make dist and make install
# leave it) answering --version, against sh -c true; then one job, futurerun -q true (a shell start
# of its own: the job is a process too).
startup() {
  local stripped=$WORK/futurerun-stripped
  strip -o "$stripped" "$FR"
  echo
  echo "## start-up: 300 runs in a row (the stripped binary, $(($(stat -c %s "$stripped") / 1024)) KiB)"
  rounds "sh=for i in \$(seq 300); do /bin/sh -c true; done" "version=for i in \$(seq 300); do $stripped --version; done" \
    "futurerun=for i in \$(seq 300); do $stripped -q true; done"
  local a_run='BEGIN { printf "%.2f", w * 1000 / 300 }'
  echo "sh -c true  $(awk -v w="$(wall sh)" "$a_run") ms a run"
  echo "futurerun --version / sh -c true  $(ratio version sh)  (rounds $(spread version sh)); $(awk -v w="$(wall version)" "$a_run") ms a run"
  echo "futurerun 'true' / sh -c true  $(ratio futurerun sh)  (rounds $(spread futurerun sh)); $(awk -v w="$(wall futurerun)" "$a_run") ms a run"
}
if [[ ${START:-0} == 1 ]]; then startup; exit 0; fi

# Jobs on another host: a private sshd on 127.0.0.2 with keys made here (never the machine's own
# sshd or ~/.ssh). The floor is the same 40 sessions started by xargs -P4 over one open connection:
# what any tool pays for a remote job (ssh's session, the remote login shell, /bin/sh -c).
remote() {
  need /usr/sbin/sshd openssh-server
  local n=40 port=$((20000 + RANDOM % 20000)) d=$WORK/ssh
  mkdir -p "$d" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$d/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$d/user_key"
  cp "$d/user_key.pub" "$d/authorized_keys"
  echo "[127.0.0.2]:$port $(cat "$d/host_key.pub")" >"$d/known_hosts"
  printf '%s\n' "ListenAddress 127.0.0.2:$port" "HostKey $d/host_key" "AuthorizedKeysFile $d/authorized_keys" \
    "PidFile $d/sshd.pid" "StrictModes no" "UsePAM no" "PasswordAuthentication no" >"$d/sshd_config"
  printf '%s\n' "Host h2" "  HostName 127.0.0.2" "  Port $port" "  User $(id -un)" "  IdentityFile $d/user_key" \
    "  IdentitiesOnly yes" "  UserKnownHostsFile $d/known_hosts" "  BatchMode yes" >"$d/ssh_config"
  /usr/sbin/sshd -f "$d/sshd_config"
  trap 'kill $(cat "$WORK/ssh/sshd.pid") 2>/dev/null; ssh -F "$WORK/ssh/ssh_config" -o ControlPath="$WORK/ssh/cm" -O exit h2 2>/dev/null; rm -rf "$WORK"' EXIT
  for _ in $(seq 50); do [[ -s $d/sshd.pid ]] && break; sleep 0.1; done
  ssh -F "$d/ssh_config" -o ControlMaster=yes -o ControlPersist=yes -o ControlPath="$d/cm" h2 true
  echo
  echo "## jobs on another host: $n trivial jobs at -j4 over ssh (one host, loopback; remote login shell: $(ssh -F "$d/ssh_config" -o ControlPath="$d/cm" h2 'echo $SHELL'))"
  # Each job prints its number: a run that lost jobs is counted (and its round left out), not timed.
  local count="wc -l | awk -v L=\$LABEL -v R=\$round '{ print L, R, \$1 }' >>$WORK/lines"
  : >"$WORK/lines"
  rounds "futurerun=LABEL=futurerun; $FR -q -j4 --ssh 'ssh -F $d/ssh_config' -S h2 --each 'echo {}' \$(seq $n) | $count" \
    "parallel=LABEL=parallel; parallel -j4 -M --ssh 'ssh -F $d/ssh_config' -S h2 'echo {}' ::: \$(seq $n) | $count" \
    "sessions=LABEL=sessions; seq $n | xargs -P4 -I{} ssh -F $d/ssh_config -o ControlPath=$d/cm h2 'echo {}' | $count"
  awk -v n=$n '$1 == "parallel" && $2 != 0 && $3 != n { lost++; missing += n - $3 } END { if (lost) printf "GNU parallel lost jobs, with exit status 0, in %d of its runs (%d jobs); those rounds are left out\n", lost, missing }' "$WORK/lines"
  awk -v n=$n 'NR == FNR { if ($3 != n) bad[$2] = 1; next } !($2 in bad)' "$WORK/lines" "$WORK/data" >"$WORK/complete"
  mv "$WORK/complete" "$WORK/data"
  echo "futurerun $(wall futurerun) s, GNU parallel -M $(wall parallel) s, bare sessions $(wall sessions) s ($(awk '{ print $2 }' "$WORK/data" | sort -u | wc -l) complete rounds)"
  echo "futurerun / GNU parallel -M -S   $(ratio futurerun parallel)  (rounds $(spread futurerun parallel))"
  echo "futurerun / bare ssh sessions    $(ratio futurerun sessions)  (rounds $(spread futurerun sessions))"
  echo "per job: futurerun $(awk -v w="$(wall futurerun)" -v n=$n 'BEGIN { printf "%.1f", w / n * 4 * 1000 }') ms of a slot, a bare session $(awk -v w="$(wall sessions)" -v n=$n 'BEGIN { printf "%.1f", w / n * 4 * 1000 }') ms"
}
if [[ ${REMOTE:-0} == 1 ]]; then remote; exit 0; fi

# One big input across jobs: $PIPE_MIB MiB of text in the page cache, `wc -l` as the job, blocks of
# 10M at -j$J, against `cat | wc -l` (the floor for a stream) and GNU parallel's --pipe/--pipepart.
pipe() {
  local mib=${PIPE_MIB:-1024} file=$WORK/big.txt
  yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c $((mib << 20)) >"$file" || true  # yes ends on SIGPIPE
  cat "$file" >/dev/null
  echo
  echo "## --pipe: $mib MiB of text, wc -l per 10M block, -j$J"
  local specs=("cat-wc=cat $file | wc -l" "fr-pipe=cat $file | $FR -q --pipe --block 10M -j$J wc -l"
    "fr-part=$FR -q --pipe-part -a $file --block 10M -j$J wc -l")
  command -v parallel >/dev/null && specs+=("gnu-pipe=cat $file | parallel --pipe --block 10M -j$J wc -l"
    "gnu-part=parallel --pipepart -a $file --block 10M -j$J wc -l")
  rounds "${specs[@]}"
  for spec in "${specs[@]}"; do
    label=${spec%%=*}
    printf '%-10s %7.2f s  peak RSS %.1f MiB (largest process)\n' "$label" "$(wall "$label")" "$(rss "$label")"
  done
  echo "futurerun --pipe / cat | wc -l         $(ratio fr-pipe cat-wc)  (rounds $(spread fr-pipe cat-wc))"
  if grep -q '^gnu-pipe ' "$WORK/data"; then
    echo "GNU parallel --pipe / futurerun --pipe  $(ratio gnu-pipe fr-pipe)  (rounds $(spread gnu-pipe fr-pipe))"
    echo "futurerun --pipe-part / GNU --pipepart  $(ratio fr-part gnu-part)  (rounds $(spread fr-part gnu-part))"
  fi
}
if [[ ${PIPE:-0} == 1 ]]; then pipe; exit 0; fi

# GNU's grammar: the same GNU parallel line (arguments on stdin, appended to the command) run by
# futurerun --gnu, by futurerun's own grammar (--each) and by GNU parallel (Debian's, and the
# newest release beside the package in ../shared/bench/gnu-parallel when it is there).
gnu() {
  local n=${GNU_N:-2000} newest
  newest=$(realpath "$HERE/../../shared/bench/gnu-parallel" 2>/dev/null || true)
  seq "$n" >"$WORK/args"
  echo
  echo "## GNU's grammar: $n trivial jobs at -j$J, arguments on stdin"
  # The grammar's own cost: the same shell for both (GNU's grammar picks the shell that started
  # futurerun, bash here, whose start-up costs more than dash's); then as a GNU user runs it.
  local specs=("fr-gnu-sh=PARALLEL_SHELL=/bin/sh $FR --gnu -j$J true < $WORK/args"
    "fr-native=$FR -q -j$J --each 'true {}' < $WORK/args" "fr-gnu=$FR --gnu -j$J true < $WORK/args")
  command -v parallel >/dev/null && specs+=("gnu=parallel -j$J true < $WORK/args")
  [[ -x $newest/parallel ]] && specs+=("gnu-newest=$newest/parallel -j$J true < $WORK/args")
  rounds "${specs[@]}"
  for spec in "${specs[@]}"; do
    label=${spec%%=*}
    printf '%-11s %7.3f s  %6.2f ms a job\n' "$label" "$(wall "$label")" "$(awk -v w="$(wall "$label")" -v n="$n" 'BEGIN { print w / n * 1000 }')"
  done
  echo "futurerun --gnu / its own grammar, both with /bin/sh  $(ratio fr-gnu-sh fr-native)  (rounds $(spread fr-gnu-sh fr-native))"
  echo "futurerun --gnu with the shell that started it ($(readlink -f /proc/$$/exe)) / with /bin/sh  $(ratio fr-gnu fr-gnu-sh)  (rounds $(spread fr-gnu fr-gnu-sh))"
  command -v parallel >/dev/null && echo "GNU parallel / futurerun --gnu     $(ratio gnu fr-gnu)  (rounds $(spread gnu fr-gnu))"
  [[ -x $newest/parallel ]] && echo "GNU 20260522 / futurerun --gnu     $(ratio gnu-newest fr-gnu)  (rounds $(spread gnu-newest fr-gnu))"
  return 0
}
if [[ ${GNU:-0} == 1 ]]; then gnu; exit 0; fi

# Trivial jobs, the work GNU parallel's --fast packs into one shell script: futurerun picks a
# path per job by itself (a builtin in its slot's warm shell, a program exec'd directly) and
# keeps each job's exit status, order and time, which --fast gives up.
fast() {
  local n=${FAST_N:-20000} million=${FAST_MILLION:-1000000} newest
  newest=$(realpath "$HERE/../../shared/bench/gnu-parallel" 2>/dev/null || true)
  [[ -x $newest/parallel ]] || { echo "# GNU parallel 20260522 is not in ../shared/bench/gnu-parallel: no --fast to compare"; return 0; }
  seq "$n" >"$WORK/echo-args"
  seq $((n / 4)) >"$WORK/true-args"
  local capture_floor=$WORK/capture_floor
  gcc -O2 -o "$capture_floor" "$HERE/c/capture_floor.c"
  echo
  echo "## trivial jobs at -j$J: $n 'echo {}', $((n / 4)) '/bin/true {}' (GNU parallel $("$newest/parallel" --version | head -1 | awk '{ print $3 }'))"
  # --fast runs its inner parallel from PATH: the same release.
  local gnu="PATH=$newest:\$PATH parallel"
  rounds "fr-echo=$FR -q -j$J --each 'echo {}' < $WORK/echo-args" \
    "fast-echo=$gnu --fast -j$J 'echo {}' < $WORK/echo-args" \
    "gnu-echo=$gnu -j$J 'echo {}' < $WORK/echo-args" \
    "xargs-echo=xargs -P$J -n1 echo < $WORK/echo-args" \
    "fr-true=$FR -q -j$J --each '/bin/true {}' < $WORK/true-args" \
    "fast-true=$gnu --fast -j$J '/bin/true {}' < $WORK/true-args" \
    "gnu-true=$gnu -j$J '/bin/true {}' < $WORK/true-args" \
    "xargs-true=xargs -P$J -n1 /bin/true < $WORK/true-args" \
    "floor-true=$capture_floor $((n / 4)) $J /bin/true"
  for label in fr-echo fast-echo gnu-echo xargs-echo fr-true fast-true gnu-true xargs-true floor-true; do
    printf '%-11s %8.3f s  %7.1f us a job\n' "$label" "$(wall "$label")" \
      "$(awk -v w="$(wall "$label")" -v n="$([[ $label == *echo ]] && echo "$n" || echo $((n / 4)))" 'BEGIN { print w / n * 1e6 }')"
  done
  echo "echo: futurerun / GNU --fast   $(ratio fr-echo fast-echo)  (rounds $(spread fr-echo fast-echo))"
  echo "echo: futurerun / xargs -P$J    $(ratio fr-echo xargs-echo)  (rounds $(spread fr-echo xargs-echo))"
  echo "echo: GNU default / futurerun  $(ratio gnu-echo fr-echo)  (rounds $(spread gnu-echo fr-echo))"
  echo "true: futurerun / GNU --fast   $(ratio fr-true fast-true)  (rounds $(spread fr-true fast-true))"
  echo "true: futurerun / xargs -P$J -n1  $(ratio fr-true xargs-true)  (rounds $(spread fr-true xargs-true))"
  echo "true: GNU default / futurerun  $(ratio gnu-true fr-true)  (rounds $(spread gnu-true fr-true))"
  echo "true: futurerun / C capture floor  $(ratio fr-true floor-true)  (rounds $(spread fr-true floor-true))"
  echo "true: C capture floor / GNU --fast  $(ratio floor-true fast-true)  (rounds $(spread floor-true fast-true))"
  echo "true: C capture floor / xargs -P$J -n1  $(ratio floor-true xargs-true)  (rounds $(spread floor-true xargs-true))"
  round=million
  measure million "seq $million | $FR -q -j$J --each 'echo {}'"
  awk -v m="$million" '$1 == "million" { printf "%d echo jobs: %.1f s (%.1f us a job), peak %.1f MiB\n", m, $3, $3 / m * 1e6, $4 / 1024 }' "$WORK/data"
}
if [[ ${FAST:-0} == 1 ]]; then fast; exit 0; fi

# --cache: the same jobs with an empty cache (each round starts one afresh) and with a full one.
cache() {
  local n=${CACHE_N:-1000}
  mkdir -p "$WORK/in"
  for i in $(seq "$n"); do head -c 4096 /dev/urandom >"$WORK/in/$i"; done
  seq "$n" >"$WORK/cache-args"
  echo
  echo "## --cache at -j$J: $n jobs 'gzip -c in/{} | wc -c', inputs of 4 KiB"
  "$FR" -q -j$J --cache "$WORK/warm" --cache-input 'in/{}' -a "$WORK/cache-args" --each "gzip -c $WORK/in/{} | wc -c" >/dev/null
  rounds "cold=rm -rf $WORK/cold; cd $WORK && $FR -q -j$J --cache cold --cache-input 'in/{}' -a cache-args --each 'gzip -c in/{} | wc -c'" \
    "warm=cd $WORK && $FR -q -j$J --cache warm --cache-input 'in/{}' -a cache-args --each 'gzip -c in/{} | wc -c'" \
    "xargs=cd $WORK/in && xargs -P$J -I{} sh -c 'gzip -c {} | wc -c' < $WORK/cache-args"
  for label in cold warm xargs; do printf '%-6s %8.3f s  peak %6.1f MiB\n' "$label" "$(wall "$label")" "$(rss "$label")"; done
  echo "warm / cold     $(ratio warm cold)  (rounds $(spread warm cold))"
  echo "cold / xargs    $(ratio cold xargs)  (rounds $(spread cold xargs))"
}
if [[ ${CACHE:-0} == 1 ]]; then cache; exit 0; fi

# Jobs as Slurm steps: a private one-node cluster (munged, slurmctld, slurmd in $WORK, the node
# claiming 8 CPUs), $SLURM_N trivial jobs in an allocation of 4 CPUs: futurerun --slurm against
# the documented GNU parallel recipe, parallel -j4 srun --exact -n1 -c1 (as root: slurm-wlm, munge).
slurm() {
  need /usr/sbin/slurmctld slurm-wlm
  need /usr/sbin/munged munge
  local n=${SLURM_N:-1000} d=$WORK/slurm host port=$((21000 + RANDOM % 30000))
  host=$(hostname -s)
  mkdir -p "$d/state" "$d/spool"
  head -c 1024 /dev/urandom >"$d/munge.key" && chmod 400 "$d/munge.key"
  printf '%s\n' "ClusterName=frbench" "SlurmctldHost=$host(127.0.0.1)" "SlurmctldPort=$port" "SlurmdPort=$((port + 1))" \
    "AuthType=auth/munge" "AuthInfo=socket=$d/munge.sock" "CredType=cred/munge" "SlurmUser=root" "SlurmdUser=root" \
    "StateSaveLocation=$d/state" "SlurmdSpoolDir=$d/spool" "SlurmctldPidFile=$d/slurmctld.pid" "SlurmdPidFile=$d/slurmd.pid" \
    "SlurmctldLogFile=$d/slurmctld.log" "SlurmdLogFile=$d/slurmd.log" "ProctrackType=proctrack/linuxproc" \
    "TaskPlugin=task/none" "SelectType=select/cons_tres" "SelectTypeParameters=CR_CPU" "ReturnToService=2" \
    "SlurmdParameters=config_overrides" "MpiDefault=none" "JobAcctGatherType=jobacct_gather/none" \
    "AccountingStorageType=accounting_storage/none" "NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN" \
    "PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP" >"$d/slurm.conf"
  munged --force --key-file="$d/munge.key" --socket="$d/munge.sock" --pid-file="$d/munged.pid" \
    --log-file="$d/munged.log" --seed-file="$d/munge.seed"
  export SLURM_CONF=$d/slurm.conf
  slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF"
  trap 'pids=$(cat "$WORK"/slurm/*.pid 2>/dev/null); kill $pids 2>/dev/null
    for _ in $(seq 50); do kill -0 $pids 2>/dev/null || break; sleep 0.1; done; rm -rf "$WORK"' EXIT
  for _ in $(seq 100); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 0.1; done
  echo
  echo "## jobs as Slurm steps: $n trivial jobs in an allocation of 4 CPUs (one node, loopback)"
  rounds "futurerun=salloc -Q -n4 $FR -q --slurm --each true \$(seq $n)" \
    "slots=salloc -Q -n4 $FR -q --slurm --slurm-slots --each true \$(seq $n)" \
    "parallel=salloc -Q -n4 parallel -j4 srun -Q --exact -n1 -c1 true ::: \$(seq $n)"
  echo "futurerun --slurm $(wall futurerun) s, --slurm-slots $(wall slots) s, parallel -j4 srun $(wall parallel) s"
  echo "futurerun --slurm / parallel srun        $(ratio futurerun parallel)  (rounds $(spread futurerun parallel))"
  echo "parallel srun / futurerun --slurm-slots  $(ratio parallel slots)  (rounds $(spread parallel slots))"
  echo "futurerun --slurm / --slurm-slots        $(ratio futurerun slots)  (rounds $(spread futurerun slots))"
}
if [[ ${SLURM:-0} == 1 ]]; then slurm; exit 0; fi

seq "$N" | sed 's/^/true /' >"$WORK/jobs"
echo
echo "## per-job cost: $N trivial jobs from a job file, -j$J"
# `true N` runs in a warm shell; fr-fresh is the same run with a shell of its own a job (the spawn
# path, what the C floor does), fr-sigchld that again with the portable exit watcher.
specs=("c-floor=$FLOOR $N $J" "xargs=xargs -d '\\n' -P$J -I{} sh -c '{}' < $WORK/jobs" "futurerun=$FR -q -j$J < $WORK/jobs"
  "fr-fresh=FUTURERUN_WARM_SHELLS=off $FR -q -j$J < $WORK/jobs"
  "fr-sigchld=FUTURERUN_WARM_SHELLS=off FUTURECORE_EXIT_WATCHER=childSignal $FR -q -j$J < $WORK/jobs")
[[ $QUICK == 1 ]] || ! command -v parallel >/dev/null || specs+=("parallel-k=parallel -j$J -k < $WORK/jobs")
rounds "${specs[@]}"
printf '%-12s %8s %9s %13s\n' command "wall s" "ms/job" "CPU ms/job"
for spec in "${specs[@]}"; do
  label=${spec%%=*}
  printf '%-12s %8.2f %9.3f %13.3f\n' "$label" "$(wall "$label")" "$(awk -v w="$(wall "$label")" -v n="$N" 'BEGIN { print w / n * 1000 }')" \
    "$(awk -v c="$(cpu "$label")" -v n="$N" 'BEGIN { print c / n * 1000 }')"
done
echo "futurerun / xargs    $(ratio futurerun xargs)  (rounds $(spread futurerun xargs))"
vs_xargs=$(ratio fr-fresh xargs)
echo "futurerun / C floor  $(ratio futurerun c-floor)  (rounds $(spread futurerun c-floor))"
echo "a shell a job: futurerun / xargs  $(ratio fr-fresh xargs)  (rounds $(spread fr-fresh xargs)); / C floor  $(ratio fr-fresh c-floor)  (rounds $(spread fr-fresh c-floor))"
echo "CPU (jobs included): futurerun / xargs  $(ratio futurerun xargs 5)  (rounds $(spread futurerun xargs 5))"
echo "portable exit watcher (SIGCHLD) / pidfd  $(ratio fr-sigchld fr-fresh)  (rounds $(spread fr-sigchld fr-fresh))"
grep -q '^parallel-k ' "$WORK/data" && echo "GNU parallel -k / futurerun  $(ratio parallel-k futurerun)  (rounds $(spread parallel-k futurerun))"

if [[ $QUICK == 1 ]]; then
  awk -v r="$vs_xargs" 'BEGIN { exit !(r <= 1.0) }' && { echo "quick check passed: a shell a job, the ratio against xargs <= 1.0"; exit 0; }
  echo "quick check FAILED: with a shell a job, futurerun costs more per job than xargs -P$J" >&2
  exit 1
fi

startup
deps

echo
echo "## output: 8 jobs x 64 MiB of stdout, in order, into /dev/null"
for i in 1 2 3 4 5 6 7 8; do echo "head -c 67108864 /dev/zero"; done >"$WORK/big"
specs=("futurerun=$FR -q -j$J < $WORK/big")
command -v parallel >/dev/null && specs+=("parallel-k=parallel -j$J -k < $WORK/big")
ROUNDS=$((ROUNDS > 3 ? 3 : ROUNDS)) rounds "${specs[@]}"
for spec in "${specs[@]}"; do
  label=${spec%%=*}
  printf '%-12s %8.0f MiB/s  peak %.1f MiB\n' "$label" "$(awk -v w="$(wall "$label")" 'BEGIN { print 512 / w }')" "$(rss "$label")"
done
grep -q '^parallel-k ' "$WORK/data" && echo "futurerun throughput / GNU parallel -k  $(ratio parallel-k futurerun)"

echo
echo "## the same into a pipe read slowly (4 MiB every 20 ms)"
slow_reader='while [ "$(head -c 4194304 | wc -c)" -gt 0 ]; do sleep 0.02; done'
ROUNDS=1 rounds "futurerun=$FR -q -j$J < $WORK/big | { $slow_reader; }"
printf 'futurerun    %8.1f s       peak %.1f MiB\n' "$(wall futurerun)" "$(rss futurerun)"

echo
echo "## memory: 1,000 and $BIG trivial jobs from stdin, -j$J"
# The last job counts futurerun's open descriptors and zombie children, as it runs.
census() { printf '%s\n' "echo \$(ls /proc/\$PPID/fd | wc -l) \$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p=\$PPID '\$4 == p && \$3 == \"Z\"' | wc -l) > $WORK/census.$1"; }
{ seq 999 | sed 's/^/true /'; census small; } >"$WORK/small"
{ seq $((BIG - 1)) | sed 's/^/true /'; census huge; } >"$WORK/huge"
ROUNDS=1 rounds "small=$FR -q -j$J < $WORK/small" "huge=$FR -q -j$J < $WORK/huge"
echo "peak RSS: 1,000 jobs $(rss small) MiB, $BIG jobs $(rss huge) MiB (ratio $(awk -v a="$(rss huge)" -v b="$(rss small)" 'BEGIN { printf "%.2f", a / b }'))"
read -r fds_small zombies_small <"$WORK/census.small"
read -r fds_huge zombies_huge <"$WORK/census.huge"
echo "at the last job: open descriptors $fds_small vs $fds_huge, zombie children $zombies_small vs $zombies_huge"
