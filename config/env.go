package config

// Env is the process environment as a run sees it: the one way configuration, the share
// dir, telemetry and the children's environment reach it, so that a test can hand a run
// any environment without touching the process's.
type Env interface {
	// Getenv is the value of a variable, "" when unset.
	Getenv(name string) string
	// Environ is every variable as KEY=value, as os.Environ returns it.
	Environ() []string
}

// FuncEnv is an Env from two functions (os.Getenv and os.Environ in the process).
type FuncEnv struct {
	GetenvFunc  func(string) string
	EnvironFunc func() []string
}

// Getenv implements Env.
func (e FuncEnv) Getenv(name string) string { return e.GetenvFunc(name) }

// Environ implements Env.
func (e FuncEnv) Environ() []string { return e.EnvironFunc() }

// MapEnv is an Env holding exactly the variables of the map (tests).
type MapEnv map[string]string

// Getenv implements Env.
func (m MapEnv) Getenv(name string) string { return m[name] }

// Environ implements Env, in no particular order.
func (m MapEnv) Environ() []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}
