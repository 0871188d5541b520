package steer

import "github.com/toksweep/toksweep/sweep"

// Only is ld with its keys replaced by keys, in order: a model's run at
// the loads it must judge, with the mode's arrivals.
func Only(ld sweep.Load, keys []sweep.LevelKey) sweep.Load { return only{Load: ld, keys: keys} }

type only struct {
	sweep.Load
	keys []sweep.LevelKey
}

// Keys iterates over the keys given.
func (o only) Keys() func() (sweep.LevelKey, bool) {
	i := 0
	return func() (sweep.LevelKey, bool) {
		if i >= len(o.keys) {
			return sweep.LevelKey{}, false
		}
		i++
		return o.keys[i-1], true
	}
}

// OwnPrompts passes on the mode's sweep.Prompter.
func (o only) OwnPrompts() bool {
	p, ok := o.Load.(sweep.Prompter)
	return ok && p.OwnPrompts()
}
