// Package match answers the questions idemkit's checks ask of a call or of
// SQL text: does this call send SQL (database/sql, pgx, sqlx, or a
// DBTX-style interface), is it a gorm read, create, update or delete, a
// Redis command; which record does it read, write, claim or delete
// (Classify, over those and bun, squirrel, goqu, redigo, rueidis,
// sync.Map, MongoDB collections, DynamoDB items, the builders ent
// generates into the module, the models sqlboiler does, and go-jet's
// statements); what does SQL text
// do, constant or assembled from constant parts (SELECT, SELECT ... FOR
// UPDATE, INSERT with or without ON CONFLICT, UPDATE guarded by a version
// column); and does a name (a table, a model, a Redis key, a column) hold
// the records that tell a repeated operation from a new one.
//
// The predicates work on the AST and go/types only, so a check built on
// them stays cheap under go vet, where it runs on every dependency.
package match
