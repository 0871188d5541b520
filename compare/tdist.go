package compare

import "math"

// studentT returns the quantile t with P(T > t) = tail of Student's t
// distribution with df degrees of freedom (df > 0, not necessarily an
// integer, as Welch's approximation gives), for tail in (0, 0.5). It
// bisects the upper tail probability, which is monotone in t.
func studentT(tail, df float64) float64 {
	if !(tail > 0 && tail < 0.5) || !(df > 0) {
		return math.NaN()
	}
	hi := 1.0
	for tUpper(hi, df) > tail {
		hi *= 2
	}
	lo := 0.0
	for range 200 {
		mid := (lo + hi) / 2
		if tUpper(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// tUpper is P(T > t) for t ≥ 0: I_x(df/2, 1/2) / 2 with x = df/(df+t²).
func tUpper(t, df float64) float64 {
	return regIncBeta(df/(df+t*t), df/2, 0.5) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), from
// its continued fraction (DLMF 8.17.22), which converges fast for
// x < (a+1)/(a+b+2); beyond that it uses I_x(a, b) = 1 − I_{1−x}(b, a).
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regIncBeta(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) + lab - la - lb)
	return front / a * betaFraction(x, a, b)
}

// betaFraction evaluates the continued fraction 1/(1+ d1/(1+ d2/(1+ …)))
// of I_x(a, b) by the modified Lentz method, where
// d_{2m} = m(b−m)x / ((a+2m−1)(a+2m)) and
// d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1)) // after d_1
	f := d
	step := func(coef float64) float64 {
		d = 1 / guard(1+coef*d)
		c = guard(1 + coef/c)
		f *= c * d
		return c * d
	}
	for m := 1.0; m <= 500; m++ {
		step(m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m)))
		if delta := step(-(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))); math.Abs(delta-1) < 1e-15 {
			break
		}
	}
	return f
}
