package hist

// Count is the number of values added.
func (h *Hist) Count() int { return h.n }
