#!/usr/bin/env bash
# A one-node Slurm 22.05 cluster on this machine, without systemd: what the Slurm executor's tests
# (and a developer trying POLYFORGE_EXECUTOR=slurm) run against. Needs root.
#
#   deploy/slurm/one-node-cluster.sh start    install what is missing, configure, start (idempotent)
#   deploy/slurm/one-node-cluster.sh stop     stop slurmrestd, slurmd, slurmctld and munged
#   deploy/slurm/one-node-cluster.sh status   what runs; exit code 0 only when jobs can run
#   deploy/slurm/one-node-cluster.sh token [user] [seconds]   a JWT for slurmrestd (SLURM_JWT)
#
# Ports: SLURMCTLD_PORT (6817), SLURMD_PORT (6818), SLURMRESTD_PORT (6820, on 127.0.0.1).
# The configuration is written to /etc/slurm/slurm.conf only when that file is absent or was
# written by this script (a real cluster's configuration is never touched).
set -euo pipefail

SLURMCTLD_PORT="${SLURMCTLD_PORT:-6817}"
SLURMD_PORT="${SLURMD_PORT:-6818}"
SLURMRESTD_PORT="${SLURMRESTD_PORT:-6820}"
APT_LOCK="${APT_LOCK:-/tmp/apt.lock}"
CONF=/etc/slurm/slurm.conf
MARKER="# Written by PolyForge deploy/slurm/one-node-cluster.sh"
STATE_DIR=/var/lib/slurm/slurmctld
SPOOL_DIR=/var/lib/slurm/slurmd
LOG_DIR=/var/log/slurm
JWT_KEY="$STATE_DIR/jwt_hs256.key"
JOBCOMP_LOG="$LOG_DIR/jobcomp.log"
REST_USER=slurmrestd
PACKAGES=(munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins slurmrestd slurm-wlm-jwt-plugin)

say() { printf 'slurm: %s\n' "$*"; }
die() { printf 'slurm: %s\n' "$*" >&2; exit 1; }

# The pid of a live (not zombie) process with exactly this name, or nothing. Stopped daemons can
# linger as zombies of whoever started them, and pidfiles in /run survive the processes.
live_pid() {
  local name="$1" pid state
  for pid in $(pgrep -x "$name" || true); do
    state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
    [[ -n "$state" && "$state" != Z* ]] && { echo "$pid"; return 0; }
  done
  return 1
}

# Removes a pidfile whose process is gone (or is another program), so a daemon does not act on it.
clear_stale_pidfile() {
  local file="$1" name="$2" pid
  [[ -f "$file" ]] || return 0
  pid=$(cat "$file" 2>/dev/null || true)
  if [[ -z "$pid" ]] || [[ "$(ps -o comm= -p "$pid" 2>/dev/null || true)" != "$name" ]]; then
    rm -f "$file"
  fi
}

install_packages() {
  local missing=()
  command -v munged >/dev/null || [[ -x /usr/sbin/munged ]] || missing+=(munge)
  [[ -x /usr/sbin/slurmctld ]] || missing+=(slurmctld)
  [[ -x /usr/sbin/slurmd ]] || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  [[ -x /usr/sbin/slurmrestd ]] || missing+=(slurmrestd)
  [[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/auth_jwt.so ]] || missing+=(slurm-wlm-jwt-plugin)
  ((${#missing[@]} == 0)) && return 0
  say "installing ${PACKAGES[*]}"
  (
    flock 9
    if ! apt-cache policy slurmctld 2>/dev/null | grep -q 'Candidate: [0-9]'; then apt-get update -qq; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
  ) 9>"$APT_LOCK"
}

write_config() {
  local node_line host conf_text
  host=$(hostname -s)
  # The node as slurmd sees it (CPUs, sockets, cores, memory); UpTime is not a slurm.conf field.
  node_line=$(slurmd -C | head -n 1)
  conf_text="$MARKER
ClusterName=polyforge
SlurmctldHost=$host
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY
StateSaveLocation=$STATE_DIR
SlurmdSpoolDir=$SPOOL_DIR
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
# No cgroups in containers: processes are tracked by their parent pids, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# Cores and memory are the consumable resources; a job without --mem gets DefMemPerCPU per CPU
# (without it, it would take the whole node's memory and every other job would queue).
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
SchedulerType=sched/backfill
# The main scheduling loop every 5 s, not 60: a job released by hand (scontrol update StartTime=now)
# or whose begin time passes starts within seconds, as tests and a small group's cluster expect.
SchedulerParameters=batch_sched_delay=0,sched_interval=5
# No slurmdbd: final states and exit codes come from the job-completion log (sacct -c).
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$JOBCOMP_LOG
ReturnToService=2
KillWait=5
MinJobAge=300
MpiDefault=none
$node_line State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  if [[ -f "$CONF" ]] && ! grep -qF "$MARKER" "$CONF"; then
    die "$CONF exists and was not written by this script; not touching it"
  fi
  if [[ ! -f "$CONF" ]] || [[ "$(cat "$CONF")" != "$conf_text" ]]; then
    mkdir -p /etc/slurm
    printf '%s\n' "$conf_text" >"$CONF"
    CONFIG_CHANGED=1
  fi
  mkdir -p "$STATE_DIR" "$SPOOL_DIR" "$LOG_DIR"
  chown slurm:slurm "$STATE_DIR" "$LOG_DIR"
  touch "$JOBCOMP_LOG" && chown slurm:slurm "$JOBCOMP_LOG"
  if [[ ! -s "$JWT_KEY" ]]; then
    dd if=/dev/urandom bs=32 count=1 2>/dev/null >"$JWT_KEY"
  fi
  chown slurm:slurm "$JWT_KEY" && chmod 0600 "$JWT_KEY"
  getent passwd "$REST_USER" >/dev/null || useradd --system --no-create-home --shell /usr/sbin/nologin "$REST_USER"
}

start_munge() {
  if live_pid munged >/dev/null; then return 0; fi
  [[ -s /etc/munge/munge.key ]] || runuser -u munge -- /usr/sbin/mungekey --create --keyfile=/etc/munge/munge.key
  mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge
  clear_stale_pidfile /run/munge/munged.pid munged
  rm -f /run/munge/munge.socket.2.lock
  runuser -u munge -- /usr/sbin/munged --force
  wait_for "munged" munge -n
}

start_daemon() {
  local name="$1" pidfile="$2"
  shift 2
  if live_pid "$name" >/dev/null; then return 0; fi
  clear_stale_pidfile "$pidfile" "$name"
  "$@"
}

# Retries a command for up to 30 s.
wait_for() {
  local what="$1"
  shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  die "$what did not come up (see $LOG_DIR)"
}

node_ready() {
  local state
  state=$(sinfo --noheader --Node --format=%t 2>/dev/null | head -n 1)
  case "$state" in
  idle | mix | alloc | comp) return 0 ;;
  down* | drain* | drng*)
    scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
    return 1
    ;;
  *) return 1 ;;
  esac
}

start_rest() {
  if live_pid slurmrestd >/dev/null; then return 0; fi
  # slurmrestd refuses to run as root or SlurmUser: it has a user of its own. SLURM_JWT=daemon:
  # it talks to slurmctld with the JWT of each request. Only the slurmctld API (openapi/v0.0.38):
  # the accounting one (dbv0.0.38) needs a slurmdbd, which this cluster does without.
  # From /: it outlives the checkout that started it, and once that directory was deleted it refused
  # every job submission ("getcwd failed") and exited.
  (cd / && exec runuser -u "$REST_USER" -- env SLURM_JWT=daemon nohup /usr/sbin/slurmrestd -a rest_auth/jwt -s openapi/v0.0.38 \
    "127.0.0.1:$SLURMRESTD_PORT") >"/tmp/slurmrestd.log" 2>&1 </dev/null &
  wait_for "slurmrestd" bash -c "exec 3<>/dev/tcp/127.0.0.1/$SLURMRESTD_PORT"
}

stop_daemon() {
  local name="$1" pid
  for pid in $(pgrep -x "$name" || true); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 20); do
    live_pid "$name" >/dev/null || return 0
    sleep 0.5
  done
  for pid in $(pgrep -x "$name" || true); do kill -9 "$pid" 2>/dev/null || true; done
}

cmd_start() {
  [[ $EUID -eq 0 ]] || die "start needs root (it installs packages and starts system daemons)"
  install_packages
  CONFIG_CHANGED=0
  write_config
  start_munge
  if [[ $CONFIG_CHANGED == 1 ]]; then
    stop_daemon slurmrestd
    stop_daemon slurmd
    stop_daemon slurmctld
  fi
  start_daemon slurmctld /run/slurmctld.pid /usr/sbin/slurmctld
  wait_for "slurmctld" scontrol ping
  start_daemon slurmd /run/slurmd.pid /usr/sbin/slurmd
  wait_for "the node" node_ready
  start_rest
  say "one-node cluster up: $(sinfo --noheader --format='%P %D %t %c CPUs %m MB')"
}

cmd_stop() {
  stop_daemon slurmrestd
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
  rm -f /run/slurmctld.pid /run/slurmd.pid /run/munge/munged.pid
  say "stopped"
}

cmd_status() {
  local ok=0 name
  for name in munged slurmctld slurmd slurmrestd; do
    if pid=$(live_pid "$name"); then say "$name running (pid $pid)"; else say "$name not running"; ok=1; fi
  done
  if command -v sinfo >/dev/null && sinfo --noheader >/dev/null 2>&1; then
    say "node: $(sinfo --noheader --Node --format='%N %t %c CPUs %m MB')"
    node_ready || ok=1
  else
    ok=1
  fi
  return $ok
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
token) scontrol token username="${2:-root}" lifespan="${3:-3600}" | sed -n 's/^SLURM_JWT=//p' ;;
*) die "usage: $0 start|stop|status|token [user] [seconds]" ;;
esac
