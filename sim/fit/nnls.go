package fit

import "math"

// gram is the sufficient statistics of a least-squares problem over nCols
// columns: XᵀX, Xᵀy, yᵀy and the number of rows. Gram matrices add, so a
// bootstrap resample is a sum of its requests' grams.
type gram struct {
	xx [nCols][nCols]float64
	xy [nCols]float64
	yy float64
	n  int
}

func (g *gram) addRow(x [nCols]float64, y float64) {
	for i := range nCols {
		if x[i] == 0 {
			continue
		}
		for j := range nCols {
			g.xx[i][j] += x[i] * x[j]
		}
		g.xy[i] += x[i] * y
	}
	g.yy += y * y
	g.n++
}

// addWeighted adds a row with weight w (its square root scales x and y).
func (g *gram) addWeighted(x [nCols]float64, y, w float64) {
	if w == 1 {
		g.addRow(x, y)
		return
	}
	sw := math.Sqrt(w)
	for i := range x {
		x[i] *= sw
	}
	g.addRow(x, y*sw)
}

func (g *gram) add(o *gram) {
	for i := range nCols {
		for j := range nCols {
			g.xx[i][j] += o.xx[i][j]
		}
		g.xy[i] += o.xy[i]
	}
	g.yy += o.yy
	g.n += o.n
}

// residual is how much of column j the columns in keep cannot express:
// sqrt(min ‖x_j − X_keep β‖² / ‖x_j‖²), 0 (fully collinear) to 1
// (orthogonal). A column of zeros gives 0.
func (g *gram) residual(j int, keep []int) float64 {
	if g.xx[j][j] <= 0 {
		return 0
	}
	if len(keep) == 0 {
		return 1
	}
	s := scales(g, append([]int{j}, keep...))
	a := make([][]float64, len(keep))
	b := make([]float64, len(keep))
	for r, p := range keep {
		a[r] = make([]float64, len(keep))
		for c, q := range keep {
			a[r][c] = g.xx[p][q] / (s[p] * s[q])
		}
		b[r] = g.xx[p][j] / (s[p] * s[j])
	}
	beta, ok := solve(a, b)
	if !ok {
		return 0 // keep itself is degenerate: nothing more is identified
	}
	left := 1.0 // ‖x_j‖² scaled to 1
	for r := range keep {
		left -= b[r] * beta[r]
	}
	return math.Sqrt(max(left, 0))
}

// nnls minimizes ‖Xβ − y‖² over β ≥ 0 on the columns in cols (the others
// stay 0), from the gram alone. The problem is small (at most nCols
// columns), so it tries every support: the optimum is the unconstrained
// least-squares solution on its own support, and no other support's
// non-negative solution does better. Columns are scaled to unit norm first,
// so that a per-token cost of nanoseconds and a fixed cost of milliseconds
// are solved alike. ok is false when no support could be solved.
func nnls(g *gram, cols []int) (beta [nCols]float64, ok bool) {
	s := scales(g, cols)
	best := math.Inf(1)
	for mask := 1; mask < 1<<len(cols); mask++ {
		var sup []int
		for i, c := range cols {
			if mask&(1<<i) != 0 {
				sup = append(sup, c)
			}
		}
		a := make([][]float64, len(sup))
		b := make([]float64, len(sup))
		for r, p := range sup {
			a[r] = make([]float64, len(sup))
			for c, q := range sup {
				a[r][c] = g.xx[p][q] / (s[p] * s[q])
			}
			b[r] = g.xy[p] / s[p]
		}
		z, solved := solve(a, b)
		if !solved || slicesMin(z) < 0 {
			continue
		}
		obj := 0.0 // ‖Xβ−y‖² − ‖y‖² = −bᵀz at the support's optimum
		for r := range sup {
			obj -= b[r] * z[r]
		}
		if obj < best {
			best, ok = obj, true
			beta = [nCols]float64{}
			for r, p := range sup {
				beta[p] = z[r] / s[p]
			}
		}
	}
	return beta, ok
}

// scales are the columns' root-sum-of-squares (1 for a zero column).
func scales(g *gram, cols []int) [nCols]float64 {
	var s [nCols]float64
	for i := range s {
		s[i] = 1
	}
	for _, c := range cols {
		if v := math.Sqrt(g.xx[c][c]); v > 0 {
			s[c] = v
		}
	}
	return s
}

func slicesMin(z []float64) float64 {
	m := math.Inf(1)
	for _, v := range z {
		m = min(m, v)
	}
	return m
}

// solve solves a·x = b by Gaussian elimination with partial pivoting; ok is
// false when a is singular (a pivot below 1e-10 of a unit-scaled matrix).
func solve(a [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) < 1e-10 {
			return nil, false
		}
		m[col], m[p] = m[p], m[col]
		for r := col + 1; r < n; r++ {
			f := m[r][col] / m[col][col]
			for c := col; c <= n; c++ {
				m[r][c] -= f * m[col][c]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		v := m[r][n]
		for c := r + 1; c < n; c++ {
			v -= m[r][c] * x[c]
		}
		x[r] = v / m[r][r]
	}
	return x, true
}
