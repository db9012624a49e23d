package units

import (
	"strings"
	"testing"
)

func TestParseCount(t *testing.T) {
	good := []struct {
		in   string
		want uint64
	}{
		{"0", 0}, {"7", 7}, {"1000000", 1000000}, {"1_000_000", 1000000},
		{"1e9", 1000000000}, {"1E9", 1000000000}, {"2.5e6", 2500000}, {"10^6", 1000000},
		{"2^63", 1 << 63}, {"18446744073709551615", 1<<64 - 1}, {"250e-1", 25},
		{"1e+3", 1000}, {"0e99", 0}, {"0^5", 0}, {"5^0", 1}, {"1^1000", 1},
	}
	for _, c := range good {
		got, err := ParseCount(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	bad := map[string]string{
		"":                     "empty",
		"1e":                   "exponent",
		"e5":                   "missing digits",
		"1.5":                  "not an integer",
		"1.5e0":                "not an integer",
		"25e-1":                "not an integer",
		"-3":                   "negative",
		"2^64":                 "too large",
		"18446744073709551616": "too large",
		"1e20":                 "too large",
		"10^100000000":         "too large",
		"1__000":               "underscore",
		"_1":                   "underscore",
		"1_":                   "underscore",
		"0x10":                 "unexpected",
		"1e6.5":                "exponent",
		"0^0":                  "undefined",
		"ten":                  "unexpected",
	}
	for in, want := range bad {
		_, err := ParseCount(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCount(%q) error = %v; want one mentioning %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseCount(%q) error spans lines: %q", in, err)
		}
	}
}

func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"1e9", "10^6", "1_000", "2.5e6", "1e", "-1", "18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseCount(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q", s)
			}
			return
		}
		// Whatever parses must parse again identically from its decimal form.
		if w, err := ParseCount(FormatCount(v)); err != nil || w != v {
			t.Fatalf("%q → %d → %q → %d, %v", s, v, FormatCount(v), w, err)
		}
	})
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1e3", 10000: "1e4", 1234: "1234", 25000000: "2.5e7", 100000000: "1e8",
		1500000: "1.5e6", 760000000: "7.6e8", 57000: "5.7e4", 123000: "1.23e5", 1230000: "1.23e6"} {
		if got := FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
}
