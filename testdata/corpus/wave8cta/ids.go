package wave8cta

import "github.com/oklog/ulid/v2"

func newEventID() string { return ulid.Make().String() }
