package units

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ParseCount parses a non-negative integer count as users write them on the
// command line: 1000000, 1_000_000, 1e6, 2.5e6, 10^6. The value must be an
// exact integer that fits in a uint64; anything else is an error that
// explains the accepted forms.
func ParseCount(s string) (uint64, error) {
	v, err := parseCount(s)
	if err != nil {
		return 0, fmt.Errorf("%q is %v (write e.g. 1000000, 1_000_000, 1e6 or 10^6)", s, err)
	}
	return v, nil
}

func parseCount(s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("negative")
	}
	if base, exp, ok := strings.Cut(s, "^"); ok {
		b, err := parseDigits(base)
		if err != nil {
			return 0, fmt.Errorf("not a number: base %v", err)
		}
		e, err := parseDigits(exp)
		if err != nil {
			return 0, fmt.Errorf("not a number: exponent %v", err)
		}
		if b.Sign() == 0 && e.Sign() == 0 {
			return 0, fmt.Errorf("0^0, which is undefined")
		}
		if b.Cmp(big.NewInt(1)) > 0 && e.Cmp(big.NewInt(64)) > 0 {
			return 0, fmt.Errorf("too large (more than 2^64−1)")
		}
		return fitUint64(new(big.Int).Exp(b, e, nil))
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, hasFrac := strings.Cut(mant, ".")
	if hasFrac && !hasExp {
		return 0, fmt.Errorf("not an integer")
	}
	w, err := parseDigits(whole)
	if err != nil {
		return 0, fmt.Errorf("not a number: %v", err)
	}
	if !hasExp {
		return fitUint64(w)
	}
	r := new(big.Rat).SetInt(w)
	if hasFrac {
		f, err := parseDigits(frac)
		if err != nil {
			return 0, fmt.Errorf("not a number: fraction %v", err)
		}
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(strings.ReplaceAll(frac, "_", "")))), nil)
		r.Add(r, new(big.Rat).SetFrac(f, den))
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimPrefix(strings.TrimPrefix(exp, "-"), "+")
	e, err := parseDigits(exp)
	if err != nil {
		return 0, fmt.Errorf("not a number: exponent %v", err)
	}
	if e.Cmp(big.NewInt(40)) > 0 {
		if r.Sign() != 0 && !neg {
			return 0, fmt.Errorf("too large (more than 2^64−1)")
		}
		if r.Sign() != 0 {
			return 0, fmt.Errorf("not an integer")
		}
		return 0, nil
	}
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), e, nil))
	if neg {
		r.Quo(r, p)
	} else {
		r.Mul(r, p)
	}
	if !r.IsInt() {
		return 0, fmt.Errorf("not an integer")
	}
	return fitUint64(r.Num())
}

// parseDigits accepts decimal digits with single underscores between digits.
func parseDigits(s string) (*big.Int, error) {
	if s == "" {
		return nil, fmt.Errorf("missing digits")
	}
	if s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return nil, fmt.Errorf("misplaced underscore")
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '_' {
			if c == '-' {
				return nil, fmt.Errorf("negative")
			}
			return nil, fmt.Errorf("unexpected %q", c)
		}
	}
	v, ok := new(big.Int).SetString(strings.ReplaceAll(s, "_", ""), 10)
	if !ok {
		return nil, fmt.Errorf("malformed")
	}
	return v, nil
}

func fitUint64(v *big.Int) (uint64, error) {
	if !v.IsUint64() {
		return 0, fmt.Errorf("too large (more than 2^64−1)")
	}
	return v.Uint64(), nil
}

// FormatCount writes n compactly and exactly, as people write numbers:
// 10000 as 1e4, 1500000 as 1.5e6 (never 15e5), 760000000 as 7.6e8; a
// count of four or more significant digits, or below 1000, in full (1234).
// ParseCount reads every form back.
func FormatCount(n uint64) string {
	if n >= 1000 {
		e := 0
		m := n
		for m%10 == 0 {
			m /= 10
			e++
		}
		if e >= 3 && m < 1000 {
			digits := strconv.FormatUint(m, 10)
			mant := digits[:1]
			if len(digits) > 1 {
				mant += "." + digits[1:]
			}
			return fmt.Sprintf("%se%d", mant, e+len(digits)-1)
		}
	}
	return fmt.Sprint(n)
}

// FormatBytes writes a byte count in binary units.
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
