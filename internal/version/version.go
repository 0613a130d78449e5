// Package version says which idemkit is running. Specs record it, generated
// files carry it in their headers, and go vet keys its cache on it.
package version

import "runtime/debug"

// Version is set at link time (-ldflags "-X .../internal/version.Version=v1.2.3");
// otherwise it comes from the module's build info, or "devel".
var Version = ""

// String returns the running idemkit's version.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
