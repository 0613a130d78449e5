// Package match answers the questions idemkit's checks ask of a call or of
// SQL text: does this call send SQL (database/sql, pgx, or a DBTX-style
// interface), is it a gorm read or create, a go-redis GET, EXISTS, SET,
// SET NX or DEL; what does a constant SQL string do (SELECT, SELECT ... FOR
// UPDATE, INSERT with or without ON CONFLICT, UPDATE guarded by a version
// column); and does a name (a table, a model, a Redis key, a column) hold
// the records that tell a repeated operation from a new one.
//
// The predicates work on the AST and go/types only, so a check built on
// them stays cheap under go vet, where it runs on every dependency.
package match
