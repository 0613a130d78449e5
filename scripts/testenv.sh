#!/usr/bin/env bash
# testenv.sh — the real Redis, Redis Cluster and Postgres that idemkit's store tests run against.
#
#   scripts/testenv.sh up          install (as root, when missing) and start them, wait until ready
#   scripts/testenv.sh down        stop them
#   scripts/testenv.sh env         print the export lines for the tests: eval "$(scripts/testenv.sh env)"
#   scripts/testenv.sh status      say what is running
#   scripts/testenv.sh exec CMD..  up, run CMD with the variables exported, then down again if this
#                                  call started the servers and no other exec still uses them
#
# The servers listen on loopback only, on ports of their own (REDIS_PORT, PG_PORT, and six from
# REDIS_CLUSTER_PORT for a cluster of three masters with a replica each), with their data under
# .cache/testenv in the checkout (git-ignored), so they never meet a system instance. The tests read
# only IDEMKIT_TEST_REDIS_URL, IDEMKIT_TEST_REDIS_CLUSTER_ADDRS and IDEMKIT_TEST_DATABASE_URL, so any
# other server can be pointed at instead. Every command is idempotent: up twice is fine, down when
# nothing runs is fine.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${IDEMKIT_TESTENV_DIR:-$root/.cache/testenv}
redis_port=${REDIS_PORT:-16379}
cluster_port=${REDIS_CLUSTER_PORT:-16380}
pg_port=${PG_PORT:-15432}
redis_url="redis://127.0.0.1:$redis_port/0"
cluster_ports=$(seq "$cluster_port" $((cluster_port + 5)))
cluster_addrs=$(for p in $cluster_ports; do printf '127.0.0.1:%s,' "$p"; done)
cluster_addrs=${cluster_addrs%,}
database_url="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"

log() { echo "testenv: $*" >&2; }
die() { log "$*"; exit 1; }

# pg_bin finds Debian's versioned Postgres binaries (they are not on PATH).
pg_bin() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[[ -n $d && -x $d/pg_ctl ]] || return 1
	echo "$d"
}

ensure_installed() {
	local missing=()
	command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
	pg_bin >/dev/null || missing+=(postgresql)
	((${#missing[@]} == 0)) && return 0
	[[ $(id -u) == 0 ]] || die "missing ${missing[*]}: install them (apt-get install -y ${missing[*]}) or run as root"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "${missing[@]}" >&2
}

# as_pg runs a command as the user that owns the Postgres data: postgres refuses to run as root.
as_pg() {
	if [[ $(id -u) == 0 ]]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

redis_up() {
	if redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1; then return 0; fi
	mkdir -p "$dir/redis"
	redis-server --bind 127.0.0.1 --port "$redis_port" --daemonize yes \
		--dir "$dir/redis" --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" \
		--save '' --appendonly no >&2
	for _ in $(seq 100); do
		redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	cat "$dir/redis/redis.log" >&2 || true
	die "redis did not become ready on port $redis_port"
}

redis_down() {
	redis-cli -h 127.0.0.1 -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}

# cluster_up starts six cluster-enabled nodes and, unless they already form one, a cluster of three
# masters with one replica each. A node times out after 2 s, so a failover in the tests takes
# seconds; DEBUG (SLEEP, to stall a master) is allowed from loopback.
cluster_up() {
	local p d
	for p in $cluster_ports; do
		redis-cli -p "$p" ping >/dev/null 2>&1 && continue
		d=$dir/cluster/$p
		mkdir -p "$d"
		redis-server --bind 127.0.0.1 --port "$p" --daemonize yes \
			--dir "$d" --pidfile "$d/redis.pid" --logfile "$d/redis.log" --save '' --appendonly no \
			--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
			--enable-debug-command local >&2
	done
	for p in $cluster_ports; do
		for _ in $(seq 100); do
			redis-cli -p "$p" ping >/dev/null 2>&1 && break
			sleep 0.1
		done
		redis-cli -p "$p" ping >/dev/null 2>&1 || { cat "$dir/cluster/$p/redis.log" >&2; die "cluster node did not start on port $p"; }
	done
	cluster_ok && return 0
	if [[ $(cluster_field "$cluster_port" cluster_slots_assigned) != 0 ]]; then
		# A cluster from an earlier up: give it time to settle, else start it afresh.
		cluster_wait 30 && return 0
		log "cluster on $cluster_addrs not healthy: resetting it"
		for p in $cluster_ports; do
			redis-cli -p "$p" flushall >/dev/null 2>&1 || true
			redis-cli -p "$p" cluster reset hard >/dev/null
		done
	fi
	# shellcheck disable=SC2086 # one address per node
	redis-cli --cluster create $(echo "$cluster_addrs" | tr , ' ') --cluster-replicas 1 --cluster-yes >"$dir/cluster/create.log" 2>&1 ||
		{ cat "$dir/cluster/create.log" >&2; die "redis-cli --cluster create failed on $cluster_addrs"; }
	cluster_wait 60 || die "cluster on $cluster_addrs did not become healthy"
}

cluster_field() {
	redis-cli -p "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"
}

# cluster_ok: every node sees all 16384 slots served, and three masters have a replica each.
cluster_ok() {
	local p
	for p in $cluster_ports; do
		[[ $(cluster_field "$p" cluster_state) == ok && $(cluster_field "$p" cluster_known_nodes) == 6 ]] || return 1
	done
	[[ $(redis-cli -p "$cluster_port" cluster nodes 2>/dev/null | grep -c slave) == 3 ]]
}

cluster_wait() {
	local i
	for i in $(seq $(($1 * 5))); do
		cluster_ok && return 0
		sleep 0.2
	done
	return 1
}

cluster_down() {
	local p
	for p in $cluster_ports; do
		redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
	done
	rm -rf "$dir/cluster"
}

# pg_data is the Postgres data directory: under $dir, unless the checkout sits where the postgres
# user cannot reach (a root-only 0700 directory, as mktemp -d makes), then in a per-checkout
# directory under /tmp.
pg_data() {
	if [[ $(id -u) != 0 ]] || (cd / && runuser -u postgres -- test -x "$dir"); then
		echo "$dir/postgres"
	else
		echo "${TMPDIR:-/tmp}/idemkit-testenv-$(echo "$root" | cksum | cut -d' ' -f1)/postgres"
	fi
}

pg_up() {
	local bin data
	data=$(pg_data)
	bin=$(pg_bin)
	if "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then return 0; fi
	if [[ ! -s $data/PG_VERSION ]]; then
		rm -rf "$data"
		mkdir -p "$data"
		[[ $(id -u) == 0 ]] && chown postgres: "$data"
		chmod 700 "$data"
		as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
	fi
	[[ $(id -u) == 0 ]] && chown -R postgres: "$data"
	# TCP only: no Unix socket, whose path has a length limit a deep checkout can exceed and whose
	# default directory may not exist here.
	as_pg "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $pg_port -c unix_socket_directories='' -c fsync=off -c max_connections=200" start >/dev/null ||
		{ cat "$data/server.log" >&2; die "postgres did not start on port $pg_port"; }
}

pg_down() {
	local bin data
	data=$(pg_data)
	bin=$(pg_bin) || return 0
	[[ -s $data/postmaster.pid ]] || return 0
	as_pg "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
}

print_env() {
	echo "export IDEMKIT_TEST_REDIS_URL='$redis_url'"
	echo "export IDEMKIT_TEST_REDIS_CLUSTER_ADDRS='$cluster_addrs'"
	echo "export IDEMKIT_TEST_DATABASE_URL='$database_url'"
}

# Serialise up and down between concurrent callers (two `make test` in one checkout).
with_lock() {
	mkdir -p "$dir"
	exec 9>"$dir/lock"
	flock 9
	"$@"
	flock -u 9
}

up() {
	ensure_installed
	redis_up
	cluster_up
	pg_up
	log "redis $redis_url, redis cluster $cluster_addrs, postgres $database_url"
}

down() {
	redis_down
	cluster_down
	pg_down
}

running() {
	local bin
	redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 || return 1
	cluster_ok || return 1
	bin=$(pg_bin) && "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"
}

# exec_users lists the live exec calls that share the servers; dead ones are forgotten.
exec_users() {
	local f
	mkdir -p "$dir/users"
	for f in "$dir/users"/*; do
		[[ -e $f ]] || continue
		if kill -0 "${f##*/}" 2>/dev/null; then echo "${f##*/}"; else rm -f "$f"; fi
	done
}

exec_up() {
	if ! running; then
		up
		touch "$dir/started-by-exec"
	fi
	mkdir -p "$dir/users"
	touch "$dir/users/$$"
}

exec_down() {
	rm -f "$dir/users/$$"
	[[ -e $dir/started-by-exec && -z $(exec_users) ]] || return 0
	down
	rm -f "$dir/started-by-exec"
}

cmd=${1:-}
shift || true
case $cmd in
up) with_lock up ;;
down) with_lock down ;;
env) print_env ;;
status)
	if running; then log "running: redis $redis_url, redis cluster $cluster_addrs, postgres $database_url"; else log "not running"; exit 1; fi
	;;
exec)
	[[ ${1:-} == -- ]] && shift
	(($# > 0)) || die "usage: $0 exec CMD [ARGS...]"
	with_lock exec_up
	eval "$(print_env)"
	status=0
	"$@" || status=$?
	with_lock exec_down
	exit "$status"
	;;
*)
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
