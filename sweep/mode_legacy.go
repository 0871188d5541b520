package sweep

// legacyMode is a mode still registered from the sweep's own files and
// chosen by the Config's own fields; each moves to its package (mode/NAME)
// and builds a Load instead.
type legacyMode struct {
	name        string
	rank        int
	open, marks bool
	selects     func(cfg *Config) bool
	keys        func(cfg *Config) func() (LevelKey, bool)
	claims      func(l *Level) bool
	measured    func(cfg *Config, k LevelKey) int
	arrivals    func(cfg *Config, k LevelKey, measured, repeat int) (Arrivals, error)
	warmConns   func(k LevelKey) int
	abortAfter  func(k LevelKey) int
	unbounded   func(k LevelKey) bool
	words       Words
}

func (m *legacyMode) Name() string         { return m.name }
func (m *legacyMode) Rank() int            { return m.rank }
func (m *legacyMode) Open() bool           { return m.open }
func (m *legacyMode) Marks() bool          { return m.marks }
func (m *legacyMode) RunsSessions() bool   { return false }
func (m *legacyMode) Claims(l *Level) bool { return m.claims(l) }
func (m *legacyMode) Words() Words         { return m.words }
func (m *legacyMode) Unbounded(k LevelKey) bool {
	return m.unbounded != nil && m.unbounded(k)
}

// legacyLoad is a legacy mode's Load of one Config.
type legacyLoad struct {
	m   *legacyMode
	cfg *Config
}

func (l legacyLoad) Mode() string                  { return l.m.name }
func (l legacyLoad) Keys() func() (LevelKey, bool) { return l.m.keys(l.cfg) }
func (l legacyLoad) Measured(cfg *Config, k LevelKey) int {
	return l.m.measured(cfg, k)
}
func (l legacyLoad) Arrivals(cfg *Config, k LevelKey, measured, repeat int) (Arrivals, error) {
	return l.m.arrivals(cfg, k, measured, repeat)
}
func (l legacyLoad) WarmConns(k LevelKey) int  { return l.m.warmConns(k) }
func (l legacyLoad) AbortAfter(k LevelKey) int { return l.m.abortAfter(k) }

// configLoad is the sweep's Load: Config.Load, else the Load of the first
// legacy mode that selects the Config (cfg.Mode, when set, decides).
func configLoad(cfg *Config) Load {
	if cfg.Load != nil {
		return cfg.Load
	}
	for _, m := range Modes() {
		lm, ok := m.(*legacyMode)
		if !ok {
			continue
		}
		if cfg.Mode == lm.name || cfg.Mode == "" && lm.selects(cfg) {
			return legacyLoad{lm, cfg}
		}
	}
	return nil
}
