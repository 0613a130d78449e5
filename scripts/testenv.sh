#!/usr/bin/env bash
# testenv.sh — the real Redis, Redis Cluster, Valkey and Postgres that idemkit's store tests run
# against.
#
#   scripts/testenv.sh up          install (as root, when missing) and start them, wait until ready
#   scripts/testenv.sh down        stop them
#   scripts/testenv.sh env         print the export lines for the tests: eval "$(scripts/testenv.sh env)"
#   scripts/testenv.sh status      say what is running
#   scripts/testenv.sh exec CMD..  up, run CMD with the variables exported, then down again if this
#                                  call started the servers and no other exec still uses them
#
# The servers listen on loopback only, on ports of their own (REDIS_PORT, VALKEY_PORT, PG_PORT, and
# six from REDIS_CLUSTER_PORT for a cluster of three masters with a replica each), with their data
# under .cache/testenv in the checkout (git-ignored), so they never meet a system instance. The
# tests read only IDEMKIT_TEST_REDIS_URL, IDEMKIT_TEST_REDIS_CLUSTER_ADDRS, IDEMKIT_TEST_VALKEY_URL
# and IDEMKIT_TEST_DATABASE_URL, so any other server can be pointed at instead. Every command is
# idempotent: up twice is fine, down when nothing runs is fine.
#
# Redis and Postgres are Debian's packages (apt-get). Valkey is there for SET ... IFEQ, the
# compare-and-set that lets the Redis store complete a key without Lua; it is Valkey 8.1, which
# Debian ships from trixie on, but bookworm does not (its backports stop at 8.0, without IFEQ), so
# where no valkey-server 8.1 or later is installed this builds one, once, from the source tarball
# of Debian's trixie package (checked against its SHA-256), into VALKEY_HOME.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${IDEMKIT_TESTENV_DIR:-$root/.cache/testenv}
redis_port=${REDIS_PORT:-16379}
cluster_port=${REDIS_CLUSTER_PORT:-16380}
pg_port=${PG_PORT:-15432}
valkey_port=${VALKEY_PORT:-16390}
redis_url="redis://127.0.0.1:$redis_port/0"
valkey_url="redis://127.0.0.1:$valkey_port/0"
# The Valkey built where none is installed: the upstream source as Debian's trixie package has it.
valkey_version=8.1.1
valkey_orig=valkey_${valkey_version}+dfsg1.orig.tar.xz
valkey_sha256=d9bbd82eecb82f359e649a0007ad3dc1b47cc15afa626348ca86b73c4ae2c7ee
valkey_source=${VALKEY_SOURCE:-http://deb.debian.org/debian/pool/main/v/valkey/$valkey_orig}
valkey_home=${VALKEY_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/idemkit-testenv/valkey-$valkey_version}
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
	if ! valkey_bin >/dev/null; then
		command -v cc >/dev/null && command -v make >/dev/null || missing+=(build-essential)
		command -v curl >/dev/null || missing+=(curl)
		command -v xz >/dev/null || missing+=(xz-utils)
	fi
	((${#missing[@]} == 0)) && return 0
	[[ $(id -u) == 0 ]] || die "missing ${missing[*]}: install them (apt-get install -y ${missing[*]}) or run as root"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "${missing[@]}" >&2
}

# valkey_bin prints a valkey-server that has SET ... IFEQ (8.1 or later): an installed one, or the
# one valkey_build made.
valkey_bin() {
	local b v
	for b in "$(command -v valkey-server || true)" "$valkey_home/valkey-server"; do
		[[ -n $b && -x $b ]] || continue
		v=$("$b" --version 2>/dev/null | sed -n 's/.*v=\([0-9]*\.[0-9]*\).*/\1/p')
		[[ -n $v ]] && printf '%s\n8.1\n' "$v" | sort -V -C -r && { echo "$b"; return 0; }
	done
	return 1
}

# valkey_build builds valkey-server from Debian's source tarball into valkey_home, with the
# dependencies the tarball bundles (about two minutes on two cores).
valkey_build() {
	valkey_bin >/dev/null && return 0
	local tmp
	tmp=$(mktemp -d)
	log "building valkey $valkey_version from $valkey_source into $valkey_home"
	curl -fsS -o "$tmp/$valkey_orig" "$valkey_source" || { rm -rf "$tmp"; die "could not download $valkey_source"; }
	echo "$valkey_sha256  $tmp/$valkey_orig" | sha256sum -c --quiet - >&2 ||
		{ rm -rf "$tmp"; die "$valkey_orig does not have the SHA-256 this script expects"; }
	tar -C "$tmp" -xJf "$tmp/$valkey_orig"
	if ! make -C "$tmp/valkey-$valkey_version" -j"$(nproc)" BUILD_TLS=no valkey-server >"$tmp/build.log" 2>&1; then
		tail -n 30 "$tmp/build.log" >&2
		rm -rf "$tmp"
		die "building valkey failed"
	fi
	mkdir -p "$valkey_home"
	cp "$tmp/valkey-$valkey_version/src/valkey-server" "$valkey_home/valkey-server.new"
	mv "$valkey_home/valkey-server.new" "$valkey_home/valkey-server"
	rm -rf "$tmp"
}

valkey_up() {
	redis-cli -h 127.0.0.1 -p "$valkey_port" ping >/dev/null 2>&1 && return 0
	valkey_build
	server_up valkey "$(valkey_bin)" "$valkey_port"
}

valkey_down() { server_down "$valkey_port"; }

# server_up starts the Redis-protocol server bin (redis-server, valkey-server) as name on port,
# without persistence, and waits until it answers.
server_up() {
	local name=$1 bin=$2 port=$3
	redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && return 0
	mkdir -p "$dir/$name"
	"$bin" --bind 127.0.0.1 --port "$port" --daemonize yes \
		--dir "$dir/$name" --pidfile "$dir/$name/$name.pid" --logfile "$dir/$name/$name.log" \
		--save '' --appendonly no >&2
	for _ in $(seq 100); do
		redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	cat "$dir/$name/$name.log" >&2 || true
	die "$name did not become ready on port $port"
}

server_down() {
	redis-cli -h 127.0.0.1 -p "$1" shutdown nosave >/dev/null 2>&1 || true
}

# as_pg runs a command as the user that owns the Postgres data: postgres refuses to run as root.
as_pg() {
	if [[ $(id -u) == 0 ]]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

redis_up() { server_up redis redis-server "$redis_port"; }

redis_down() { server_down "$redis_port"; }

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
	echo "export IDEMKIT_TEST_VALKEY_URL='$valkey_url'"
	# The binary too, for the fault soak, which starts and kills servers of its own.
	echo "export IDEMKIT_TEST_VALKEY_SERVER='$(valkey_bin || true)'"
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
	valkey_up
	pg_up
	log "redis $redis_url, redis cluster $cluster_addrs, valkey $valkey_url, postgres $database_url"
}

down() {
	redis_down
	cluster_down
	valkey_down
	pg_down
}

running() {
	local bin
	redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 || return 1
	redis-cli -h 127.0.0.1 -p "$valkey_port" ping >/dev/null 2>&1 || return 1
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
	if running; then log "running: redis $redis_url, redis cluster $cluster_addrs, valkey $valkey_url, postgres $database_url"; else log "not running"; exit 1; fi
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
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2
	;;
esac
