package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Scope says where a skill was found. The system prompt groups skills by it.
type Scope string

// The scopes, in the order the prompt lists them.
const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
	ScopeExtra   Scope = "extra"
	ScopeBuiltin Scope = "builtin"
)

// Root is a directory of skills: NAME/SKILL.md folders and flat NAME.md files.
type Root struct {
	Dir   string
	Scope Scope
}

// Options says where skills are looked for.
type Options struct {
	// WorkDir is the agent's work dir; skill paths inside it are shown relative to it.
	WorkDir string
	// ProjectRoot is the git root above WorkDir (or WorkDir): project skills live there.
	ProjectRoot string
	// Home is the user's home directory; "" looks in no user directories.
	Home string
	// SkillsDirs (--skills-dir) replace the project and user directories.
	SkillsDirs []string
	// ExtraDirs (extra_skill_dirs in config.toml) are searched after the user's; "~/" is
	// the home directory and a relative entry is relative to ProjectRoot.
	ExtraDirs []string
	// FirstBrandOnly takes only the first existing of the .kimi, .claude and .codex
	// directories instead of all of them (merge_all_available_skills = false).
	FirstBrandOnly bool
	// NoDiscovery looks in neither the project's nor the user's directories (--bare): only
	// SkillsDirs and ExtraDirs.
	NoDiscovery bool
}

// Roots returns the directories to search, the one whose skills win first: the
// --skills-dir directories, or else the project's (.kimi/skills, .claude/skills,
// .codex/skills, then .agents/skills) and the user's (~/.kimi/skills, ~/.claude/skills,
// ~/.codex/skills, then ~/.config/agents/skills or else ~/.agents/skills); then
// extra_skill_dirs. Only directories that exist are returned, each once. This is Kimi
// CLI's order: a project skill beats a user skill of the same name.
func Roots(opt Options) []Root {
	var out []Root
	seen := map[string]bool{}
	add := func(dir string, scope Scope) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return
		}
		key := filepath.Clean(dir)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			key = real
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, Root{Dir: filepath.Clean(dir), Scope: scope})
		}
	}
	// group adds the brand directories (all, or the first that exists) and then the first
	// existing generic one.
	group := func(base string, brands, generic []string, scope Scope) {
		for _, b := range brands {
			d := filepath.Join(base, b, "skills")
			if isDir(d) {
				add(d, scope)
				if opt.FirstBrandOnly {
					break
				}
			}
		}
		for _, g := range generic {
			if d := filepath.Join(base, g); isDir(d) {
				add(d, scope)
				break
			}
		}
	}
	brands := []string{".kimi", ".claude", ".codex"}
	if len(opt.SkillsDirs) > 0 {
		for _, d := range opt.SkillsDirs {
			add(d, ScopeExtra)
		}
	} else if !opt.NoDiscovery {
		if opt.ProjectRoot != "" {
			group(opt.ProjectRoot, brands, []string{filepath.Join(".agents", "skills")}, ScopeProject)
		}
		if opt.Home != "" {
			group(opt.Home, brands, []string{filepath.Join(".config", "agents", "skills"), filepath.Join(".agents", "skills")}, ScopeUser)
		}
	}
	for _, d := range opt.ExtraDirs {
		switch {
		case d == "":
			continue
		case d == "~" || strings.HasPrefix(d, "~/"):
			if opt.Home == "" {
				continue
			}
			d = filepath.Join(opt.Home, d[1:])
		case !filepath.IsAbs(d):
			d = filepath.Join(opt.ProjectRoot, d)
		}
		add(d, ScopeExtra)
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Set is every skill found, by name. The zero value holds none.
type Set struct {
	list   []*Skill
	byName map[string]*Skill
	byDir  map[string]*Skill
	broken map[string]error
	// Warnings name the skill files that could not be used; the run reports them.
	Warnings []string
}

// Find discovers the skills of opt.
func Find(opt Options) *Set {
	return Discover(opt.WorkDir, Roots(opt))
}

// Discover reads the skills of roots, which come highest priority first: of two
// skills with the same name (compared without case) the first found wins. In one root a
// NAME/SKILL.md folder wins over a flat NAME.md file.
func Discover(workDir string, roots []Root) *Set {
	s := &Set{byName: map[string]*Skill{}, byDir: map[string]*Skill{}, broken: map[string]error{}}
	for _, root := range roots {
		s.discover(workDir, root)
	}
	for _, sk := range s.byName {
		s.list = append(s.list, sk)
	}
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })
	return s
}

func (s *Set) discover(workDir string, root Root) {
	entries, err := os.ReadDir(root.Dir)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("skills in %s: %v", root.Dir, err))
		return
	}
	inRoot := map[string]bool{}
	var flat []os.DirEntry
	for _, e := range entries {
		p := filepath.Join(root.Dir, e.Name())
		if !isDir(p) { // follows links: a linked skill folder counts
			if strings.EqualFold(filepath.Ext(e.Name()), ".md") && !strings.EqualFold(e.Name(), "SKILL.md") {
				flat = append(flat, e)
			}
			continue
		}
		file := filepath.Join(p, "SKILL.md")
		if _, err := os.Stat(file); err != nil {
			continue
		}
		s.add(workDir, root, file, e.Name(), inRoot)
	}
	for _, e := range flat {
		stem := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		s.add(workDir, root, filepath.Join(root.Dir, e.Name()), stem, inRoot)
	}
}

// add reads one skill file; dirName is its folder's name (or a flat file's stem).
func (s *Set) add(workDir string, root Root, file, dirName string, inRoot map[string]bool) {
	sk, err := readSkill(file, dirName, displayPath(workDir, file))
	dirKey := strings.ToLower(dirName)
	if err != nil {
		if _, taken := s.broken[dirKey]; !taken && s.byDir[dirKey] == nil {
			s.broken[dirKey] = err
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("skill %s is left out: %v", displayPath(workDir, file), err))
		return
	}
	sk.Scope = root.Scope
	key := strings.ToLower(sk.Name)
	if inRoot[key] {
		return // a folder skill of this root already has the name
	}
	inRoot[key] = true
	if s.byName[key] == nil {
		s.byName[key] = sk
	}
	if s.byDir[dirKey] == nil {
		s.byDir[dirKey] = sk
	}
}

// displayPath is file relative to workDir when it lies inside it, else absolute.
func displayPath(workDir, file string) string {
	if workDir != "" {
		if rel, err := filepath.Rel(workDir, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return file
}

// List returns the skills found, sorted by name.
func (s *Set) List() []*Skill {
	if s == nil {
		return nil
	}
	return s.list
}

// Lookup finds the skill name (without regard to case): by its name, then by its folder's
// name. A skill file that could not be read is reported with its problem.
func (s *Set) Lookup(name string) (*Skill, error) {
	if s == nil || !validSkillName(name) {
		return nil, &Error{Name: name, Err: ErrUnknown}
	}
	key := strings.ToLower(name)
	if sk := s.byName[key]; sk != nil {
		return sk, nil
	}
	if sk := s.byDir[key]; sk != nil {
		return sk, nil
	}
	if err := s.broken[key]; err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	return nil, &Error{Name: name, Err: ErrUnknown}
}

// PromptList is the skills as the system prompt lists them (KIMI_SKILLS), grouped by
// scope; "" when there are none.
func (s *Set) PromptList() string {
	var sections []string
	for _, sc := range []struct {
		scope   Scope
		heading string
	}{{ScopeProject, "Project"}, {ScopeUser, "User"}, {ScopeExtra, "Extra"}, {ScopeBuiltin, "Built-in"}} {
		var b strings.Builder
		for _, sk := range s.List() {
			if sk.Scope != sc.scope {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("### " + sc.heading)
			}
			fmt.Fprintf(&b, "\n- %s\n  - Path: %s\n  - Description: %s", sk.Name, sk.File, sk.Description)
		}
		if b.Len() > 0 {
			sections = append(sections, b.String())
		}
	}
	return strings.Join(sections, "\n\n")
}

// firstLine is the description a skill without one gets: its first line of text.
func firstLine(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == "---" {
			continue
		}
		if utf8.RuneCountInString(line) > 240 {
			r := []rune(line)
			line = strings.TrimSpace(string(r[:239])) + "…"
		}
		return line
	}
	return "No description provided."
}
