package handoff

import "syscall"

func init() {
	args, ok := cmdline()
	if !ok || len(args) < 2 || !IsVetProtocol(args[1:]) {
		return
	}
	if v, _ := syscall.Getenv(EnvInProcess); v != "" {
		return
	}
	self, ok := executable()
	if !ok {
		return
	}
	sibling := dir(self) + "/" + Sibling
	if sibling == self {
		return // idemkit-vet itself, under its own name: nothing to hand off to
	}
	env := append(syscall.Environ(), EnvParent+"="+self)
	// On success Exec does not return. On failure (no idemkit-vet beside
	// idemkit, or not executable) idemkit runs the checks itself.
	_ = syscall.Exec(sibling, args, env)
}

// cmdline reads the process's arguments from /proc: os.Args is set by the
// os package's init, which has not run yet.
func cmdline() ([]string, bool) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var data []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	var args []string
	start := 0
	for i, b := range data {
		if b == 0 {
			args = append(args, string(data[start:i]))
			start = i + 1
		}
	}
	return args, len(args) > 0
}

// executable is the path of the running binary, as os.Executable finds it
// on Linux.
func executable() (string, bool) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil || n <= 0 || n >= len(buf) {
		return "", false
	}
	return string(buf[:n]), true
}

// dir is path/filepath.Dir for the absolute paths /proc/self/exe gives.
func dir(path string) string {
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return "/"
}
