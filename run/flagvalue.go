package run

import (
	"reflect"
	"time"

	"github.com/alecthomas/kong"
)

// missingValue finds a flag that takes a value given last on the command line, without
// one, and says what it needs ("--max-steps needs a number"), where kong would say
// `expected an int but got "EOL"`. nil when the last word is not such a flag.
func missingValue(app *kong.Application, args []string) error {
	if len(args) == 0 || app == nil {
		return nil
	}
	last := args[len(args)-1]
	for _, f := range app.Flags {
		if f.IsBool() || f.IsCounter() {
			continue
		}
		if last == "--"+f.Name || (f.Short != 0 && last == "-"+string(f.Short)) || containsAlias(f.Aliases, last) {
			return usagef("%s needs %s", last, valueNoun(f.Target))
		}
	}
	return nil
}

func containsAlias(aliases []string, word string) bool {
	for _, a := range aliases {
		if word == "--"+a {
			return true
		}
	}
	return false
}

// valueNoun says what a flag's value is, for a person.
func valueNoun(v reflect.Value) string {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return "a duration (e.g. 30s, 10m)"
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		if !v.IsNil() {
			return valueNoun(v.Elem())
		}
		return valueNoun(reflect.Zero(v.Type().Elem()))
	}
	return "a value"
}
