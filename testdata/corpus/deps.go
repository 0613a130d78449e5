// Package corpus keeps the libraries the scenarios use in go.mod; the
// scenarios live in the packages below it.
package corpus

import (
	_ "github.com/Masterminds/squirrel"
	_ "github.com/avast/retry-go/v4"
	_ "github.com/aws/aws-sdk-go-v2/service/sqs"
	_ "github.com/cenkalti/backoff/v4"
	_ "github.com/doug-martin/goqu/v9"
	_ "github.com/go-redis/redis/v8"
	_ "github.com/gofrs/uuid/v5"
	_ "github.com/gomodule/redigo/redis"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v4"
	_ "github.com/jackc/pgx/v4/pgxpool"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"
	_ "github.com/nats-io/nats.go"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/redis/rueidis"
	_ "github.com/rs/xid"
	_ "github.com/segmentio/ksuid"
	_ "github.com/stripe/stripe-go/v82"
	_ "github.com/uptrace/bun"
	_ "github.com/uptrace/bun/dialect/pgdialect"
	_ "gorm.io/gorm"
	_ "gorm.io/gorm/clause"
)
