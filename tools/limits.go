package tools

import (
	"github.com/kimi-run/kimi-run/tools/background"
	"strconv"
	"strings"
	"sync"
)

// limitText fills the {placeholders} in tool and argument descriptions with the limits
// the code enforces, so the text the model reads cannot drift from what the tools do.
// New applies it to every description and schema; it is built on first use, not at start-up.
var limitText = sync.OnceValue(func() *strings.Replacer {
	// Not a limit, but as much a fact of the code: the shell Shell runs.
	return strings.NewReplacer(append(limitPairs(), "{shell_run}", theShell().run())...)
})

// limitsOnly fills the limits and leaves {shell_run}, which depends on the machine: the
// schemas' table (schemas.txt) is written with it.
var limitsOnly = sync.OnceValue(func() *strings.Replacer { return strings.NewReplacer(limitPairs()...) })

// limitPairs are the placeholders of the limits and their values, for strings.NewReplacer.
func limitPairs() []string {
	itoa := strconv.Itoa
	return []string{
		"{fetch_timeout}", itoa(int(fetchTimeout.Seconds())) + " seconds",
		"{fetch_max}", itoa(fetchMaxBytes>>20) + " MiB",
		"{media_max}", itoa(int(MediaMaxBytes>>20)) + " MiB",
		"{search_default_limit}", itoa(searchDefaultLimit),
		"{search_max_limit}", itoa(searchMaxLimit),
		"{glob_limit}", itoa(globLimit),
		"{grep_default_limit}", itoa(grepDefaultLimit),
		"{grep_max_lines}", itoa(grepMaxUnits),
		"{read_max_lines}", itoa(ReadMaxLines),
		"{read_max_bytes}", itoa(ReadMaxBytes>>10) + " KiB",
		"{read_max_line_chars}", itoa(ReadMaxLineChars),
		"{shell_default_timeout}", itoa(ShellDefaultTimeout),
		"{shell_max_timeout}", itoa(ShellMaxTimeout),
		"{shell_background_max}", itoa(int(background.MaxTimeout.Seconds())),
		"{task_list_default}", itoa(taskListDefault),
		"{task_list_max}", itoa(taskListMax),
		"{task_wait_default}", itoa(taskWaitDefault),
		"{task_wait_max}", itoa(taskWaitMax),
	}
}
