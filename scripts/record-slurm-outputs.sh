#!/usr/bin/env bash
# Records, as test fixtures, what one Slurm release answers to every question hetscale
# asks it (docs/testbed.md, "Recorded Slurm outputs").
#   scripts/record-slurm-outputs.sh --slurm RELEASE [--out DIR] [--run-dir RUN] [--no-corpus] [--names-only]
# Brings up a testbed cluster of RELEASE (scripts/cluster.sh, accounting on; no site
# table, so no hetscale build is needed) in RUN (default /tmp/hetscale-record-RELEASE),
# runs a completed job, a job that exits 3, a cancelled one, a timed-out one, an array
# of 3 tasks and a batch job with an srun step, drains a node with a reason and a
# comment, reserves nodes, and writes each command's output to DIR (default
# tests/fixtures/slurm/RELEASE) with a README.md naming the command behind each file;
# then the same cluster without accounting, for sacct's refusal; then, on a fresh cluster,
# the jobs' names phase into DIR/names: jobs whose names and working directory hold a
# byte that is not UTF-8, text that reads as jobcomp fields, a line break (and after one,
# another user's jobcomp line), a job with a comment (--names-only: this phase alone, DIR
# untouched otherwise). The outputs are Slurm's, never edited. Unless --no-corpus, the outputs the
# fuzz targets read are copied to their seed corpora (fuzz/corpus/<target>/slurm-RELEASE-*).
# Takes about two minutes (--names-only: about 20 s): a job's time limit is at least a
# minute, and slurmctld notices its end within 30 s more. Runs as root (cluster.sh does).
set -euo pipefail

SCRIPT=record-slurm-outputs.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

RELEASE="" OUT="" RUN="" CORPUS=1 NAMES_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --names-only) NAMES_ONLY=1; shift ;;
    --slurm) RELEASE=${2:?--slurm needs a release}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --run-dir) RUN=${2:?--run-dir needs a directory}; shift 2 ;;
    --no-corpus) CORPUS=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
done
[ -n "$RELEASE" ] || die "--slurm RELEASE is required (try --help)"
[ "$(id -u)" -eq 0 ] || die "must run as root (scripts/cluster.sh)"
OUT=$(abs_path "${OUT:-$REPO/tests/fixtures/slurm/$RELEASE}")
RUN=$(abs_path "${RUN:-/tmp/hetscale-record-$RELEASE}")
CLUSTER=$REPO/scripts/cluster.sh
# Fields of `sacct -P -o`: every one exists in 22.05, 24.11 and 26.05.
SACCT_FIELDS=JobID,JobIDRaw,JobName,User,Account,Partition,State,ExitCode,DerivedExitCode,Reason,Timelimit,TimelimitRaw,Elapsed,ElapsedRaw,Submit,Start,End,NodeList,NNodes,AllocCPUS,Cluster,WorkDir,Flags

NEW=$OUT.new.$$
START=$SECONDS
cleanup() {
  "$CLUSTER" down --run-dir "$RUN" >/dev/null 2>&1 || true
  rm -rf "$NEW"
}
trap cleanup EXIT

# A command as the README shows it: words with spaces or quotes in single quotes, words
# with bytes that do not print (a line break, a byte that is not UTF-8) as bash's $'...'.
shown() {
  local word out=""
  for word in "$@"; do
    if [[ "$word" =~ ^[A-Za-z0-9_./:=,%@+-]+$ ]]; then
      out+="$word "
    elif LC_ALL=C bash -c '[[ "$1" =~ [^[:print:]] ]]' _ "$word"; then
      out+="$(LC_ALL=C printf '%q' "$word") "
    else
      out+="'$word' "
    fi
  done
  printf '%s' "${out% }"
}

# rec FILE MODE WHAT CMD...: runs CMD in the jobs directory. MODE stdout: its standard
# output to FILE, its standard error (when there is any) to FILE.stderr; merged: both to
# FILE, as hetscale reads that command. FILE is in REC_DIR (the recording's directory, or
# its names/). The README gets the command and its exit status.
ROWS=()
REC_DIR=$NEW
rec() {
  local file=$1 mode=$2 what=$3 status=0
  shift 3
  case "$mode" in
    stdout)
      "$@" >"$REC_DIR/$file" 2>"$REC_DIR/$file.stderr" || status=$?
      if [ -s "$REC_DIR/$file.stderr" ]; then what+=" (standard error: \`$file.stderr\`)"; else rm -f "$REC_DIR/$file.stderr"; fi ;;
    merged) "$@" >"$REC_DIR/$file" 2>&1 || status=$? ;;
  esac
  local how=""
  [ "$mode" = stdout ] || how=" 2>&1"
  ROWS+=("| \`$file\` | \`$(shown "$@")$how\` | $status | $what |")
}

note() { ROWS+=("| | $1 | | |"); }

# wait_for SECONDS WHAT CMD...: until CMD succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    [ $SECONDS -lt $deadline ] || die "waited $1 s for $what"
    sleep 0.5
  done
}

job_state() { squeue -h -j "$1" -o %T 2>/dev/null | head -n 1; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
gone() { [ -z "$(squeue -h -j "$1" -o %T 2>/dev/null)" ]; }

write_jobs() {
  mkdir -p "$RUN/jobs"
  cd "$RUN/jobs"
  cat >timeout.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=timeout
#SBATCH --time=1
#SBATCH --nodelist=n1
#SBATCH --output=%x-%j.out
sleep 300
EOF
  cat >completed.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=completed
#SBATCH --time=1
#SBATCH --nodelist=n2
#SBATCH --output=%x-%j.out
hostname
EOF
  cat >failed.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=failed
#SBATCH --time=1
#SBATCH --nodelist=n2
#SBATCH --output=%x-%j.out
exit 3
EOF
  cat >signalled.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=signalled
#SBATCH --time=1
#SBATCH --nodelist=n2
#SBATCH --output=%x-%j.out
kill -KILL $$
EOF
  cat >cancelled.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=cancelled
#SBATCH --time=5
#SBATCH --nodelist=n4
#SBATCH --output=%x-%j.out
sleep 300
EOF
  cat >array.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=array
#SBATCH --time=1
#SBATCH --array=0-2%1
#SBATCH --exclude=n1,n4
#SBATCH --output=%x-%A_%a.out
sleep 4
echo "task $SLURM_ARRAY_TASK_ID"
EOF
  cat >held.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=held
#SBATCH --time=1
#SBATCH --hold
#SBATCH --output=%x-%j.out
true
EOF
  cat >step.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=step
#SBATCH --time=1
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --exclude=n1,n4
#SBATCH --output=%x-%j.out
srun hostname
EOF
  cat >bad-qos.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=bad-qos
#SBATCH --time=1
#SBATCH --qos=no-such-qos
true
EOF
  cat >bad-partition.sbatch <<'EOF'
#!/bin/sh
#SBATCH --job-name=bad-partition
#SBATCH --time=1
#SBATCH --partition=no-such-partition
true
EOF
}

record() {
  say "bringing up Slurm $RELEASE in $RUN"
  "$CLUSTER" restart --run-dir "$RUN" --slurm "$RELEASE" --hetscale none >&2
  # shellcheck disable=SC1091
  source "$RUN/env"
  rm -rf "$NEW"
  mkdir -p "$NEW"
  write_jobs

  VERSION=$(scontrol --version)
  rec scontrol-show-config.txt stdout "the configuration; hetscale reads ClusterName" scontrol show config
  rec scontrol-show-partition-testbed.txt merged "a partition" scontrol show partition testbed --oneliner
  rec scontrol-show-partition-unknown.txt merged "a partition that does not exist" \
    scontrol show partition no-such-partition --oneliner
  rec scontrol-show-reservation-none.txt stdout "no reservation yet" scontrol show reservation --oneliner
  rec sbatch-test-only-accepted.txt merged "a script Slurm accepts" sbatch --test-only completed.sbatch
  rec sbatch-test-only-refused-qos.txt merged "a script naming a QOS that does not exist" \
    sbatch --test-only bad-qos.sbatch
  rec sbatch-test-only-refused-partition.txt merged "a script naming a partition that does not exist" \
    sbatch --test-only bad-partition.sbatch
  rec squeue-unknown-job.txt stdout "a job id Slurm never had" squeue --noheader --format=%F --jobs 999
  rec sacct-json-list.txt merged "the data_parser versions sacct offers" sacct --json=list

  # The jobs; the timed-out one first, as it takes longest.
  J_TIMEOUT=$(sbatch --parsable timeout.sbatch)
  note "\`sbatch --parsable timeout.sbatch\`: job $J_TIMEOUT"
  rec sbatch-parsable.txt stdout "a submission's job id" sbatch --parsable completed.sbatch
  J_DONE=$(cut -d';' -f1 "$NEW/sbatch-parsable.txt")
  J_FAIL=$(sbatch --parsable failed.sbatch)
  note "\`sbatch --parsable failed.sbatch\`: job $J_FAIL"
  J_SIGNAL=$(sbatch --parsable signalled.sbatch)
  note "\`sbatch --parsable signalled.sbatch\`: job $J_SIGNAL"
  J_CANCEL=$(sbatch --parsable cancelled.sbatch)
  note "\`sbatch --parsable cancelled.sbatch\`: job $J_CANCEL"
  J_ARRAY=$(sbatch --parsable array.sbatch)
  note "\`sbatch --parsable array.sbatch\`: job $J_ARRAY"
  J_HELD=$(sbatch --parsable held.sbatch)
  note "\`sbatch --parsable held.sbatch\`: job $J_HELD"
  rec sbatch-parsable-dependency.txt stdout "a submission after another job has ended" \
    sbatch --parsable --dependency=afterany:"$J_DONE" step.sbatch
  J_STEP=$(cut -d';' -f1 "$NEW/sbatch-parsable-dependency.txt")
  IDS=$J_TIMEOUT,$J_DONE,$J_FAIL,$J_SIGNAL,$J_CANCEL,$J_ARRAY,$J_HELD,$J_STEP

  wait_for 60 "job $J_CANCEL to run" running "$J_CANCEL"
  wait_for 60 "job $J_TIMEOUT to run" running "$J_TIMEOUT"
  wait_for 60 "array $J_ARRAY to run a task" sh -c "squeue -h -j $J_ARRAY -t RUNNING -o %i | grep -q ."
  rec squeue-active.txt stdout "the jobs while $J_TIMEOUT, $J_CANCEL and a task of $J_ARRAY run" \
    squeue --noheader --format=%F --jobs "$IDS"
  rec sacct-json-active.json stdout "the jobs while some run, the rest of array $J_ARRAY and job $J_HELD pend" \
    sacct --json --allusers --jobs "$IDS"
  scancel "$J_CANCEL"
  note "\`scancel $J_CANCEL\` while it ran"
  scancel "$J_HELD"
  note "\`scancel $J_HELD\` while it was held (never started)"
  for j in "$J_DONE" "$J_FAIL" "$J_SIGNAL" "$J_CANCEL" "$J_ARRAY" "$J_HELD" "$J_STEP"; do wait_for 120 "job $j to end" gone "$j"; done
  rec squeue-ended.txt stdout "jobs that have ended (still in slurmctld's memory)" \
    squeue --noheader --format=%F --jobs "$J_DONE,$J_FAIL"

  # Nodes: n3 drained, n5 in a maintenance reservation, n4 in a future one; n1 runs the job
  # that is to time out.
  rec scontrol-update-drain.txt merged "drains n3 with a reason and a comment" \
    scontrol update nodename=n3 state=drain reason='disk swap planned' comment='ticket 42'
  rec scontrol-update-extra.txt merged "sets Extra= on n3" scontrol update nodename=n3 extra='rack=7'
  rec scontrol-create-reservation-active.txt merged "an active maintenance reservation of n5" \
    scontrol create reservation reservationname=maint-n5 nodes=n5 starttime=now duration=120 \
    users=root flags=maint,ignore_jobs
  rec scontrol-create-reservation-future.txt merged "a reservation of n4 that starts tomorrow" \
    scontrol create reservation reservationname=later-n4 nodes=n4 starttime=now+1days duration=60 \
    users=root flags=ignore_jobs
  # slurmctld shows the reservation in the node's state at its next pass.
  wait_for 20 "n5 to show MAINT" sh -c 'scontrol show node n5 --oneliner | grep -q "State=[^ ]*MAINT"'
  rec scontrol-show-node.txt stdout "every node: n1 running job $J_TIMEOUT, n3 drained, n5 reserved" \
    scontrol show node --oneliner
  rec scontrol-show-reservation.txt stdout "the two reservations" scontrol show reservation --oneliner
  rec scontrol-show-partition.txt stdout "every partition" scontrol show partition --oneliner
  if scontrol --json show partitions >/dev/null 2>&1; then
    rec scontrol-json-show-nodes.json stdout "every node" scontrol --json show nodes
    rec scontrol-json-show-reservations.json stdout "the two reservations" scontrol --json show reservations
    rec scontrol-json-show-partitions.json stdout "every partition" scontrol --json show partitions
  else
    note "not recorded: \`scontrol --json\`, which Slurm $RELEASE does not have ($(scontrol --json show nodes 2>&1 | head -n 1))"
  fi

  say "waiting for job $J_TIMEOUT to reach its time limit"
  wait_for 180 "job $J_TIMEOUT to time out" gone "$J_TIMEOUT"
  # slurmdbd has every job's end once sacct shows no job pending or running, and
  # jobcomp.log has one line per job and array task (10).
  wait_for 60 "sacct to show every job ended" sh -c \
    "[ \"\$(sacct -n -X -P --allusers --jobs '$IDS' -o State | grep -c -v -E 'PENDING|RUNNING|^\$')\" = 10 ]"
  wait_for 30 "jobcomp.log to have 10 lines" sh -c "[ \"\$(wc -l <'$RUN/jobcomp.log')\" = 10 ]"

  rec sacct-json-jobs.json stdout "the jobs, as \`hetscale study\` asks for them" \
    sacct --json --allusers --jobs "$IDS"
  rec sacct-json-starttime.json stdout "every job since a date, as \`hetscale collect --sacct\` asks" \
    sacct --json --allusers --starttime now-7days
  rec sacct-json-failed-job.json stdout "the job that exited 3 alone" sacct --json --allusers --jobs "$J_FAIL"
  rec sacct-json-no-such-name.json stdout "jobs of a name no job has" \
    sacct --json --allusers --starttime now-1days --name no-such-job-name
  # Every data_parser version the release offers: a site's own tools may ask for any.
  PARSERS=$(grep -o 'v[0-9][0-9.]*' "$NEW/sacct-json-list.txt" | sort -V | tr '\n' ' ') || true
  OLDEST=${PARSERS%% *}
  if [ -n "$OLDEST" ]; then
    for v in $PARSERS; do
      rec "sacct-json-$v-jobs.json" stdout "the jobs in data_parser $v" sacct --json="$v" --allusers --jobs "$IDS"
    done
  else
    note "not recorded: an older data_parser version (Slurm $RELEASE's sacct has one JSON form: sacct-json-list.txt)"
  fi
  rec sacct-parsable.txt stdout "the jobs and their steps as text" \
    sacct -P --allusers --jobs "$IDS" -o "$SACCT_FIELDS"
  cp "$RUN/jobcomp.log" "$NEW/jobcomp.log"
  ROWS+=("| \`jobcomp.log\` | slurmctld's \`JobCompType=jobcomp/filetxt\` file (JobCompLoc), copied | | one line per job and array task |")

  say "bringing up Slurm $RELEASE without accounting"
  "$CLUSTER" restart --run-dir "$RUN" --slurm "$RELEASE" --accounting none --hetscale none >&2
  rec sacct-json-accounting-none.txt merged "sacct where \`AccountingStorageType=accounting_storage/none\`" \
    sacct --json --allusers --starttime now-7days
  "$CLUSTER" down --run-dir "$RUN" >&2
}

# The jobs' names phase, on a cluster of its own (job ids from 1): a job named with a byte
# that is not UTF-8, one whose working directory holds one, one named with text that
# reads as jobcomp fields after the name (and exits 3), one whose name fakes every field
# up to WorkDir=, one named with a line break, and an array of two submitted held with a
# comment (squeue's %k shows it), released after squeue is recorded; then two whose
# working directory writes a whole line of another user's job after a line break. Into
# NAMES_DIR.
record_names() {
  say "bringing up Slurm $RELEASE for the jobs' names"
  "$CLUSTER" restart --run-dir "$RUN" --slurm "$RELEASE" --hetscale none >&2
  # shellcheck disable=SC1091
  source "$RUN/env"
  mkdir -p "$RUN/jobs" "$NAMES_DIR"
  cd "$RUN/jobs"
  local saved_rows=("${ROWS[@]}") saved_dir=$REC_DIR
  ROWS=()
  REC_DIR=$NAMES_DIR
  NAMES_VERSION=$(scontrol --version)
  BAD_DIR=$RUN/jobs/dir$'\xff'bad
  mkdir -p "$BAD_DIR"
  local common=(--parsable --time=1 --nodelist=n2 --output="$RUN/jobs/names-%j.out")
  local ids=() id
  names_job() {  # names_job WHAT SBATCH-ARGUMENTS...: submits, notes the job (or the refusal) in the README
    local what=$1 said
    shift
    if said=$(sbatch "${common[@]}" "$@" 2>&1); then
      id=${said%%;*}
      ids+=("$id")
      note "\`$(shown sbatch "${common[@]}" "$@")\`: job $id, $what"
    else
      id=""
      note "\`$(shown sbatch "${common[@]}" "$@")\`: refused ($(printf '%s' "$said" | head -n 1)), $what"
    fi
  }
  names_job "a name with a byte that is not UTF-8" --job-name=$'bad\xffname' --wrap true
  N_BAD_NAME=$id
  names_job "a working directory with a byte that is not UTF-8" --job-name=bad-dir --chdir="$BAD_DIR" --wrap true
  N_BAD_DIR=$id
  names_job "a name that reads as fields; exits 3" --job-name='a JobState=COMPLETED ExitCode=0:0 Cluster=x' --wrap 'exit 3'
  N_SPOOF=$id
  names_job "a name that fakes every field up to WorkDir=; exits 3" \
    --job-name='b JobState=COMPLETED Partition=testbed TimeLimit=1 StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:01 NodeList=n1 NodeCnt=1 ProcCnt=1 WorkDir=/tmp' \
    --wrap 'exit 3'
  N_FAKE=$id
  names_job "a name with a line break" --job-name=$'line\nJobId=99 break' --wrap true
  N_BREAK=$id
  names_job "an array of two, held, with a comment" --job-name=commented --comment=hetscale-0123abcd-1 \
    --array=0-1 --hold --wrap true
  N_COMMENT=$id
  rec squeue-comment.txt stdout "the held array, by name, with its comment, as \`hetscale study\` looks a job up" \
    squeue --noheader --states=all --user root --name commented '--format=%F|%k'
  scontrol release "$N_COMMENT"
  note "\`scontrol release $N_COMMENT\`"
  for id in "${ids[@]}"; do wait_for 120 "job $id to end" gone "$id"; done
  # Then, every job before ended (the array's tasks have their ids), two jobs whose working
  # directory holds a line break and after it a line of another user's job: job 2's and
  # job 1's, as hetscale-test's. The first leaves its own line cut short before the break;
  # the second fakes the rest of its own line before it, so that both its lines read.
  local forged_user tail_fields
  forged_user="UserId=hetscale-test($(id -u hetscale-test)) GroupId=$(id -gn hetscale-test)($(id -g hetscale-test))"
  tail_fields="ReservationName= Tres=cpu=1,mem=1M,node=1,billing=1 Account=hetscale QOS=normal WcKey=/ Cluster=hetscale SubmitTime=2026-01-01T00:00:00 EligibleTime=2026-01-01T00:00:00 DerivedExitCode=0:0 ExitCode=0:0 "
  FORGED_DIR=$RUN/jobs/x$'\n'"JobId=$N_BAD_DIR $forged_user Name=forged JobState=COMPLETED Partition=testbed TimeLimit=1 StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:01 NodeList=n1 NodeCnt=1 ProcCnt=1 WorkDir=/y"
  FAKE_TAIL_DIR="$RUN/jobs/z $tail_fields"$'\n'"JobId=$N_BAD_NAME $forged_user Name=/ JobState=COMPLETED Partition=testbed TimeLimit=1 StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:01 NodeList=n1 NodeCnt=1 ProcCnt=1 WorkDir=/z"
  mkdir -p "$FORGED_DIR" "$FAKE_TAIL_DIR"
  local before=${#ids[@]}
  names_job "a working directory with a line break and, after it, job $N_BAD_DIR's line as hetscale-test's" \
    --job-name=forged-line --chdir="$FORGED_DIR" --wrap true
  N_FORGED=$id
  names_job "a working directory that fakes the rest of its own line, then a line break and job $N_BAD_NAME's line as hetscale-test's" \
    --job-name=fake-tail --chdir="$FAKE_TAIL_DIR" --wrap true
  N_FAKE_TAIL=$id
  for id in "${ids[@]:$before}"; do wait_for 120 "job $id to end" gone "$id"; done
  local all
  all=$(IFS=,; echo "${ids[*]}")
  # Every job and task has ended in slurmdbd (the array's two tasks apart), and every job
  # has its line (its first, for the name with a line break) in jobcomp.log.
  wait_for 60 "sacct to show every job ended" sh -c \
    "[ \"\$(sacct -n -X -P --allusers --jobs '$all' -o State | grep -c -v -E 'PENDING|RUNNING|^\$')\" = $((${#ids[@]} + 1)) ]"
  # Until slurmdbd has a job's whole record, sacct names it "allocation", with no working
  # directory; every job here has a name of its own.
  wait_for 60 "sacct to have every job's name" sh -c \
    "! sacct -n -X -P --allusers --jobs '$all' -o JobName | grep -q -x allocation"
  wait_for 30 "jobcomp.log to have every job" sh -c \
    "for j in ${ids[*]} $((N_COMMENT + 1)); do grep -q \"^JobId=\$j \" '$RUN/jobcomp.log' || exit 1; done"
  rec sacct-json-jobs.json stdout "the jobs" sacct --json --allusers --jobs "$all"
  rec sacct-json-commented.json stdout "the array with a comment, by name and user, as \`hetscale study\` looks a job up" \
    sacct --json --user root --name commented --starttime now-1hours
  rec sacct-parsable.txt stdout "the jobs as text" \
    sacct -P --allusers --jobs "$all" -o JobID,JobName,State,ExitCode,WorkDir,Comment
  cp "$RUN/jobcomp.log" "$NAMES_DIR/jobcomp.log"
  ROWS+=("| \`jobcomp.log\` | slurmctld's \`JobCompType=jobcomp/filetxt\` file (JobCompLoc), copied | | one line per job and array task, as slurmctld wrote them |")
  NAME_ROWS=("${ROWS[@]}")
  ROWS=("${saved_rows[@]}")
  REC_DIR=$saved_dir
  "$CLUSTER" down --run-dir "$RUN" >&2
}

write_names_readme() {
  {
    echo "# Slurm $RELEASE: jobs' names"
    echo
    echo "Made by \`scripts/record-slurm-outputs.sh --slurm $RELEASE\` (its names phase, alone with"
    echo "\`--names-only\`) on $(date -u +%Y-%m-%d) (UTC), on the testbed (docs/testbed.md): \`$NAMES_VERSION\`,"
    echo "$(release_origin), a fresh cluster with accounting by slurmdbd on MariaDB, run directory \`$RUN\`,"
    echo "commands run as root from \`$RUN/jobs\`."
    echo
    echo "Jobs whose names and working directory a user chose with what the readers of Slurm's"
    echo "outputs must survive: a byte that is not UTF-8 (\\xff, in job $N_BAD_NAME's name and job $N_BAD_DIR's"
    echo "working directory), text that reads as the jobcomp fields after the name (job $N_SPOOF: its name"
    echo "says COMPLETED, it exits 3; job $N_FAKE: its name fakes every field up to \`WorkDir=\`), a line"
    echo "break (job $N_BREAK), an array submitted with a comment (job $N_COMMENT), and working directories"
    echo "that write, after a line break, a whole line of another user's job (job $N_FORGED: job $N_BAD_DIR's as"
    echo "hetscale-test's, its own line cut short; job $N_FAKE_TAIL: job $N_BAD_NAME's as hetscale-test's, the rest of"
    echo "its own line faked before the break). Every file is what Slurm printed, made by the script and"
    echo "never edited (the bytes included)."
    echo
    echo "| file | command | exit status | what |"
    echo "|---|---|---|---|"
    printf '%s\n' "${NAME_ROWS[@]}"
  } >"$NAMES_DIR/README.md"
}

# What the sacct JSON says about itself (meta.plugin, meta.Slurm).
json_meta() {
  python3 -c 'import json, sys
meta = json.load(open(sys.argv[1])).get("meta", {})
parts = [f"{k} `{v}`" for k, v in meta.get("plugin", {}).items() if v]
print(", ".join(parts) or "none")' "$1"
}

write_readme() {
  local parsers="" meta oldest_meta=""
  parsers=$(grep -o 'data_parser/v[0-9.]*' "$NEW/sacct-json-list.txt" | sort -V | sed 's/.*/`&`/' | tr '\n' ' ') || true
  meta=$(json_meta "$NEW/sacct-json-jobs.json")
  [ -n "$OLDEST" ] && oldest_meta=$(json_meta "$NEW/sacct-json-$OLDEST-jobs.json")
  {
    echo "# Slurm $RELEASE: recorded outputs"
    echo
    echo "Made by \`scripts/record-slurm-outputs.sh --slurm $RELEASE\` on $(date -u +%Y-%m-%d) (UTC), on the"
    echo "testbed (docs/testbed.md): \`$VERSION\` (\`scontrol --version\`), $(release_origin), default layout"
    echo "(n1 to n5, one CPU each), accounting by slurmdbd on MariaDB, run directory \`$RUN\`,"
    echo "commands run as root from \`$RUN/jobs\`."
    echo
    echo "- \`sacct --json\`: ${meta}."
    if [ -n "$parsers" ]; then
      echo "- data_parser versions \`sacct --json=list\` offers: ${parsers% }; the oldest, \`--json=$OLDEST\`: ${oldest_meta}."
    else
      echo "- \`sacct --json\` has no data_parser versions to choose from (\`sacct-json-list.txt\`)."
    fi
    echo
    echo "Every file is what Slurm printed, made by the script and never edited: times, dates,"
    echo "ports, the host name and the run directory are those of the recording. Job ids are"
    echo "stable (every recording starts on an empty accounting database and a fresh slurmctld)."
    echo
    echo "## Jobs"
    echo
    echo "The scripts are written by the recording script (\`write_jobs\`); every job has \`--time=1\` (one minute) unless said."
    echo
    echo "| job | script | what happens |"
    echo "|---|---|---|"
    echo "| $J_TIMEOUT | \`timeout.sbatch\`: \`sleep 300\` on n1 | runs past its time limit: TIMEOUT |"
    echo "| $J_DONE | \`completed.sbatch\`: \`hostname\` on n2 | COMPLETED |"
    echo "| $J_FAIL | \`failed.sbatch\`: \`exit 3\` on n2 | FAILED, exit code 3 |"
    echo "| $J_SIGNAL | \`signalled.sbatch\`: \`kill -KILL \$\$\` on n2 | killed by signal 9 |"
    echo "| $J_CANCEL | \`cancelled.sbatch\`: \`sleep 300\` on n4, \`--time=5\` | \`scancel\` while it runs: CANCELLED |"
    echo "| $J_ARRAY | \`array.sbatch\`: \`--array=0-2%1\` (one task at a time), \`sleep 4\` | three tasks, COMPLETED |"
    echo "| $J_HELD | \`held.sbatch\`: \`--hold\` | cancelled while held: CANCELLED, never started |"
    echo "| $J_STEP | \`step.sbatch\`: \`--nodes=2 --ntasks=2\`, \`srun hostname\`, submitted with \`--dependency=afterany:$J_DONE\` | COMPLETED, with a batch step and step 0 |"
    echo
    echo "Then n3 is drained (reason \`disk swap planned\`, comment \`ticket 42\`, \`Extra=rack=7\`),"
    echo "n5 gets an active maintenance reservation \`maint-n5\` and n4 one that starts a day later, \`later-n4\`."
    echo
    echo "## Files"
    echo
    echo "In the order the script runs the commands; exit status as the command returned it."
    echo
    echo "| file | command | exit status | what |"
    echo "|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
  } >"$NEW/README.md"
}

release_origin() {
  if [ -f "$REPO/scripts/slurm-roots/$RELEASE" ]; then
    echo "from the Debian $(awk '$1 == "suite" { print $2 }' "$REPO/scripts/slurm-roots/$RELEASE") root (scripts/slurm-root.sh)"
  else
    echo "this machine's Debian package"
  fi
}

# The outputs the fuzz targets parse, as seeds (docs/fuzzing.md).
copy_names_to_corpus() {
  local c=$REPO/fuzz/corpus p=slurm-$RELEASE
  cp "$OUT/names/sacct-json-jobs.json" "$c/sacct/$p-names.json"
  cp "$OUT/names/jobcomp.log" "$c/jobcomp/$p-names.log"
}

copy_to_corpus() {
  local c=$REPO/fuzz/corpus p=slurm-$RELEASE
  copy_names_to_corpus
  cp "$OUT/sacct-json-failed-job.json" "$c/sacct/$p-failed-job.json"
  cp "$OUT/sacct-json-jobs.json" "$c/sacct/$p-jobs.json"
  cp "$OUT/sacct-json-active.json" "$c/sacct/$p-active.json"
  cp "$OUT/scontrol-show-node.txt" "$c/scontrol_nodes/$p-nodes.txt"
  cp "$OUT/scontrol-show-reservation.txt" "$c/scontrol_nodes/$p-reservations.txt"
  cp "$OUT/scontrol-show-partition-testbed.txt" "$c/scontrol_partition/$p-testbed.txt"
  cp "$OUT/jobcomp.log" "$c/jobcomp/$p-jobcomp.log"
  say "copied to the seed corpora: fuzz/corpus/{sacct,scontrol_nodes,scontrol_partition,jobcomp}/$p-*"
}

if [ "$NAMES_ONLY" = 1 ]; then
  # The names phase alone, into OUT/names; the rest of OUT untouched.
  NAMES_DIR=$NEW
  record_names
  write_names_readme
  mkdir -p "$OUT"
  rm -rf "$OUT/names"
  mv -T "$NEW" "$OUT/names"
  say "recorded $(find "$OUT/names" -type f | wc -l) files in $OUT/names in $((SECONDS - START)) s"
  if [ "$CORPUS" = 1 ]; then copy_names_to_corpus; fi
  exit 0
fi
record
write_readme
NAMES_DIR=$NEW/names
record_names
write_names_readme
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv -T "$NEW" "$OUT"
say "recorded $(find "$OUT" -type f | wc -l) files in $OUT in $((SECONDS - START)) s"
[ "$CORPUS" = 1 ] && copy_to_corpus
exit 0
