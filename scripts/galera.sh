#!/usr/bin/env bash
# A three-node MariaDB Galera cluster on this machine, for `make test-galera` and bench/galera.ts.
#
#   scripts/galera.sh start          a fresh cluster (data wiped) unless one is running; waits until
#                                    every node says wsrep_cluster_size=3 and Synced
#   scripts/galera.sh stop           stops every node and removes the data
#   scripts/galera.sh status         each node: running or not, cluster size, state
#   scripts/galera.sh kill N         SIGKILL of node N (1-3): a lost machine
#   scripts/galera.sh rejoin N       starts node N again into the running cluster; waits until Synced
#   scripts/galera.sh urls           the nodes' DB URLs, space-separated (GALERA_URLS)
#
# Each node has its own data directory, socket, pid file and ports under GALERA_DIR (default
# /tmp/galera-art): SQL 3311-3313, group communication 4571/4581/4591, incremental state transfer
# one above, rsync state transfer two above. It never touches the server on 3306. Debian's
# mariadb-server brings galera-4; installed here when missing (with rsync, the state transfer).
set -euo pipefail

DIR=${GALERA_DIR:-/tmp/galera-art}
PROVIDER=/usr/lib/galera/libgalera_smm.so
NODES="1 2 3"
sql_port() { echo $((3310 + $1)); }
gcomm_port() { echo $((4561 + 10 * $1)); }
sock() { echo "$DIR/n$1.sock"; }
pidf() { echo "$DIR/n$1.pid"; }
cnf() { echo "$DIR/n$1.cnf"; }

say() { echo "galera: $*" >&2; }

ensure_packages() {
  if [ ! -f "$PROVIDER" ] || ! command -v rsync >/dev/null; then
    say "installing galera-4 and rsync"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q galera-4 rsync >/dev/null
  fi
  command -v mariadbd >/dev/null || { say "mariadbd is missing: apt-get install mariadb-server"; exit 1; }
}

# Runs SQL on node $1 through its socket as root.
q() { mariadb --no-defaults -uroot -S "$(sock "$1")" -N -B -e "$2" 2>/dev/null; }

running() { local p; p=$(cat "$(pidf "$1")" 2>/dev/null) && kill -0 "$p" 2>/dev/null; }

write_cnf() {
  local i=$1 g; g=$(gcomm_port "$i")
  cat >"$(cnf "$i")" <<EOF
[mysqld]
datadir=$DIR/d$i
port=$(sql_port "$i")
socket=$(sock "$i")
pid-file=$(pidf "$i")
bind-address=127.0.0.1
user=mysql
log-error=$DIR/n$i.err
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=128M
innodb_flush_log_at_trx_commit=1
max_connections=300
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=archive_records_test
wsrep_cluster_address=gcomm://127.0.0.1:$(gcomm_port 1),127.0.0.1:$(gcomm_port 2),127.0.0.1:$(gcomm_port 3)
wsrep_node_name=n$i
wsrep_node_address=127.0.0.1:$g
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$g;ist.recv_addr=127.0.0.1:$((g + 1));gcache.size=256M"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((g + 2))
wsrep_slave_threads=2
# Reads wait until this node has applied what the cluster committed before them: a client that
# writes through one node and reads through another sees its write (sessions, read-your-writes).
wsrep_sync_wait=1
# A statement outside a transaction that loses certification to another node is run again.
wsrep_retry_autocommit=4
EOF
}

start_node() {
  local i=$1; shift
  # setsid: the node outlives this script and is not in the caller's process group (make, mocha).
  setsid mariadbd --defaults-file="$(cnf "$i")" "$@" </dev/null >>"$DIR/n$i.out" 2>&1 &
}

# Waits until node $1 answers and is Synced in a cluster of $2 (seconds: $3).
wait_synced() {
  local i=$1 size=$2 until=$((SECONDS + $3)) state n
  while [ $SECONDS -lt "$until" ]; do
    state=$(q "$i" "SHOW STATUS LIKE 'wsrep_local_state_comment'" | cut -f2 || true)
    n=$(q "$i" "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2 || true)
    if [ "$state" = Synced ] && [ "${n:-0}" -ge "$size" ]; then return 0; fi
    if ! running "$i" && [ -f "$(pidf "$i")" ]; then say "node $i died; its log:"; tail -20 "$DIR/n$i.err" >&2; return 1; fi
    sleep 0.5
  done
  say "node $i not Synced in a cluster of $size after $3 s (state '${state:-none}', size '${n:-none}'); its log:"
  tail -20 "$DIR/n$i.err" >&2
  return 1
}

cluster_up() { for i in $NODES; do running "$i" || return 1; done; }

start() {
  ensure_packages
  if cluster_up; then
    for i in $NODES; do wait_synced "$i" 3 60; done
    say "already running"; return 0
  fi
  stop_all
  mkdir -p "$DIR"
  for i in $NODES; do
    mariadb-install-db --no-defaults --datadir="$DIR/d$i" --user=mysql --auth-root-authentication-method=normal >"$DIR/install-$i.log" 2>&1 \
      || { say "mariadb-install-db failed for node $i:"; tail "$DIR/install-$i.log" >&2; exit 1; }
    write_cnf "$i"
  done
  # Run as mysql (user=mysql): a root-owned data directory makes the joiner's rsync fail.
  chown -R mysql:mysql "$DIR"
  start_node 1 --wsrep-new-cluster
  wait_synced 1 1 60
  # Root may connect over TCP from 127.0.0.1 without a password, as on the server at 3306.
  q 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
       CREATE USER IF NOT EXISTS 'root'@'localhost'; SET GLOBAL log_bin_trust_function_creators = 1;"
  for i in 2 3; do
    start_node "$i"
    wait_synced "$i" "$i" 120
  done
  for i in $NODES; do
    wait_synced "$i" 3 60
    mariadb --no-defaults -uroot -h127.0.0.1 -P"$(sql_port "$i")" -e 'SELECT 1' >/dev/null \
      || { say "node $i does not answer root over TCP"; exit 1; }
  done
  say "three nodes Synced: $(urls)"
}

stop_node() {
  local i=$1 p
  p=$(cat "$(pidf "$i")" 2>/dev/null) || return 0
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 1 120); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$p" 2>/dev/null || true
}

stop_all() {
  for i in 3 2 1; do stop_node "$i"; done
  rm -rf "$DIR"
}

kill_node() {
  local p; p=$(cat "$(pidf "$1")")
  kill -9 "$p"
  while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
  say "node $1 (pid $p) killed"
}

# The cluster position (uuid:seqno) node $1's InnoDB had committed, read by mariadbd --wsrep-recover.
# That process should exit once it has logged the position; once in seven rejoins here it spun on
# after it instead, growing to 19 GB in two minutes, so it gets 5 s to exit after the line (60 s
# in all) and is then killed: the node's real start recovers InnoDB again anyway.
recovered_position() {
  local log="$DIR/n$1.recover.log" pid until=$((SECONDS + 60))
  logged() { sed -n 's/.*WSREP: Recovered position: *\([0-9a-f-]*:[0-9-]*\).*/\1/p' "$log" 2>/dev/null | tail -1; }
  rm -f "$log"
  mariadbd --defaults-file="$(cnf "$1")" --wsrep-recover --log-error="$log" >/dev/null 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt "$until" ]; do
    # Once the position is logged, 5 s more at most.
    [ "$until" -gt $((SECONDS + 5)) ] && [ -n "$(logged)" ] && until=$((SECONDS + 5))
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "node $1's position recovery did not exit; killed"
    kill -9 "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  logged
}

rejoin() {
  local i=$1 pos
  running "$i" && { say "node $i is running"; return 0; }
  rm -f "$(pidf "$i")" "$(sock "$i")"
  # A killed node's grastate.dat has no position (seqno -1), so it would ask for a full state
  # transfer: rsync copies every file while the donor is read-locked (seen to hang the donor here).
  # With the position InnoDB recovers it asks only for the writes it missed, from a peer's gcache
  # (IST), as galera_recovery does for systemd. Without one (a clean stop) it starts as it is.
  pos=$(recovered_position "$i")
  # A recovery killed above leaves its pid file (the node's own, from the same settings): the
  # start's wait would take the dead pid in it for the new node dying at once.
  rm -f "$(pidf "$i")"
  case "$pos" in *:-1 | "") pos="" ;; esac
  say "node $i recovered position: ${pos:-none}"
  start_node "$i" ${pos:+--wsrep-start-position="$pos"}
  wait_synced "$i" 3 180
  say "node $i rejoined and Synced"
}

status() {
  for i in $NODES; do
    if running "$i"; then
      echo "node $i: running on $(sql_port "$i"), cluster size $(q "$i" "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2), $(q "$i" "SHOW STATUS LIKE 'wsrep_local_state_comment'" | cut -f2)"
    else
      echo "node $i: stopped"
    fi
  done
}

urls() { echo "mysql://root@127.0.0.1:$(sql_port 1) mysql://root@127.0.0.1:$(sql_port 2) mysql://root@127.0.0.1:$(sql_port 3)"; }

case "${1:-}" in
  start) start ;;
  stop) stop_all; say "stopped" ;;
  status) status ;;
  kill) kill_node "${2:?node 1-3}" ;;
  rejoin) rejoin "${2:?node 1-3}" ;;
  urls) urls ;;
  *) echo "usage: $0 start|stop|status|kill N|rejoin N|urls" >&2; exit 2 ;;
esac
