package handoff

import "testing"

func TestIsVetProtocol(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"-flags"}, true},
		{[]string{"-V=full"}, true},
		{[]string{"/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-json", "-checkthenact", "/tmp/vet.cfg"}, true},
		{[]string{"-json", "-cachekey=1764460800", "/tmp/go-build2/b014/vet.cfg"}, true},
		{nil, false},
		{[]string{""}, false},
		{[]string{".cfg"}, true},
		{[]string{"version"}, false},
		{[]string{"design", "x.cfg"}, false},
		{[]string{"audit", "./..."}, false},
		{[]string{"--help"}, false},
		{[]string{"-V=full", "design"}, false},
		{[]string{"-flag"}, false},
		{[]string{"-x.cfg"}, false},
		{[]string{"-json", "vet.cfg", "-flags"}, false},
	}
	for _, tc := range cases {
		if got := IsVetProtocol(tc.args); got != tc.want {
			t.Errorf("IsVetProtocol(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
