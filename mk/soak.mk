# The fault soak of examples/payments (examples/payments/soak_test.go): instances of the example,
# processes of their own, under duplicate storms while a schedule drawn from a seed SIGKILLs,
# SIGSTOPs and SIGCONTs them and kills and restarts the store; a checker then counts executions per
# key at the shared fake processor against the runtime semantics. make test runs it for 45s per
# store (Redis and Postgres side by side) with a 4s lease, so that instances paused past it show
# the paused holder's double; make soak runs it for SOAK_DURATION with SOAK_LEASE (0: the spec's
# 30s lease), pausing instances past it too. It starts servers of its own (redis-server, and a
# Postgres cluster from /usr/lib/postgresql/*/bin): make testenv installs them when missing.
# SOAK_SEED=N (with the same SOAK_DURATION and SOAK_LEASE) replays the schedule a failed run printed.
# make soak also runs the Redis store on Valkey 8.1 (SET ... IFEQ instead of the complete script),
# which scripts/testenv.sh builds where none is installed; SOAK_STORES picks the stores.

SOAK_DURATION ?= 10m
SOAK_LEASE    ?= 0
SOAK_SEED     ?=
SOAK_TIMEOUT  ?= 2h
SOAK_STORES   ?= redis,valkey,postgres

.PHONY: soak
soak: ## Run the fault soak for SOAK_DURATION per store (default 10m) with SOAK_LEASE (0: the spec's); SOAK_SEED=N replays
	IDEMKIT_SOAK_DURATION=$(SOAK_DURATION) IDEMKIT_SOAK_LEASE=$(SOAK_LEASE) IDEMKIT_SOAK_STORES=$(SOAK_STORES) \
	  $(if $(SOAK_SEED),IDEMKIT_SOAK_SEED=$(SOAK_SEED)) \
	  scripts/testenv.sh exec $(GO) test -count=1 -run '^TestSoak$$' -v -timeout $(SOAK_TIMEOUT) ./examples/payments
