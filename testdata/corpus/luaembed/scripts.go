// Package luaembed keeps its Redis Lua scripts in .lua files beside the
// code, embedded with //go:embed, and runs them through scripts kept in
// package variables and struct fields, or loaded once and run by SHA.
// Whether a script is a claim (a test and a write in one script) or a
// plain write decides whether the Go code around it races.
package luaembed

import (
	"embed"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// claimLua and completeLua are embedded one file each, as a string and as
// bytes.
//
//go:embed lua/claim.lua
var claimLua string

//go:embed lua/complete.lua
var completeLua []byte

//go:embed lua/*.lua
var luaFiles embed.FS

// loadScript reads one script of lua/ by its name.
func loadScript(name string) (string, error) {
	b, err := luaFiles.ReadFile(fmt.Sprintf("lua/%s.lua", name))
	if err != nil {
		return "", fmt.Errorf("luaembed: script %s: %w", name, err)
	}
	return string(b), nil
}

// The scripts the package runs by name, made once at start-up.
var (
	lookupScript  *redis.Script
	releaseScript *redis.Script
	reserveScript *redis.Script
)

func init() {
	src, err := loadScript("lookup")
	if err != nil {
		panic(err)
	}
	lookupScript = redis.NewScript(src)
	src, err = loadScript("release")
	if err != nil {
		panic(err)
	}
	releaseScript = redis.NewScript(src)
	src, err = loadScript("reserve")
	if err != nil {
		panic(err)
	}
	reserveScript = redis.NewScript(src)
}
