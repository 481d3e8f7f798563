// Package launcher is kimi-run's launcher process on Linux: the launch.Starter that starts
// a run's children, confines those that ask for it, and ends whatever they leave when the
// run ends. Its story, in the order a start meets it:
//
// A process of its own (remote_linux.go, serve_linux.go). A child kimi-run starts itself is
// orphaned to init when kimi-run dies, with all it forked, and nobody ends it. So children
// come from a launcher process, kimi-run's own image run with ServeArg, started with the
// first child (New starts nothing), in a session of its own, with an empty environment and
// no parent-death signal. It makes itself the child subreaper: whatever a child starts,
// however it forks or setsids, stays below it. When kimi-run ends — in order (Close), by a
// signal, or by SIGKILL (its socket closes) — the launcher ends the whole tree (endAll;
// tree_linux.go stops and kills every descendant) and exits. Its children die with it
// (parent-death signal), but for those that are to outlive the run (Spec.Survive).
//
// The wire (wire_linux.go, link_linux.go). kimi-run and a launcher talk over a
// SOCK_SEQPACKET socket pair, one JSON message per datagram; a child's descriptors 0-2
// travel beside its start as SCM_RIGHTS, a message too large for a datagram (a huge
// environment) in a memfd. An answer repeats its request's id; a child's end comes as an
// exit message (wait status, CPU time), which finishes its Proc. kimi-run reads only small
// answers, and gives up a launcher that does not answer or is seen stopped (link.watch):
// it ends its tree itself, and the next start starts a new one.
//
// Cgroups (cgroup_linux.go). Where it can, the launcher makes a cgroup v2 for the run below
// its own and starts every child in it (CLONE_INTO_CGROUP): cgroup.kill ends everything at
// once, and pids.max, or a cgroup v1 pids hierarchy its serving thread joins, bounds the
// tasks (Launcher.TaskLimit). Without one (Keep, NoCgroup, no right) the tree walk ends
// the run alone.
//
// The confined arm (startBox in serve_linux.go, ns_linux.go, mounts_linux.go). A confined
// child comes from a second launcher process the first starts in the box role, which
// confines itself (sandbox.Confine) before it starts anything, and forks on one OS thread,
// so all confined children share one Landlock domain. Under Policy.Namespaces it starts in
// a user and a mount namespace of its own. Before it confines itself it makes every mount
// read-only but clones of the writable roots (so chmod, chown and utimes outside them
// fail, which Landlock cannot refuse), gives the run a /tmp of its own, and starts the
// first process of a new process namespace, its own image in init mode, which mounts a
// /proc of that namespace over /proc. The arm joins that namespace for its children only:
// the numbers it reports, and kimi-run signals, are the machine's, while its children see
// only the run's processes. The init reaps the namespace's orphans and is killed with the
// arm (parent-death signal), but for an arm whose children may outlive the run (keep,
// survive): that init exits once the arm has gone and the namespace holds nothing else.
// Each part the machine refuses is left out, with a note (opNote, Launcher.Warn).
//
// The netns relay (netns_linux.go). Under --allow-host, Landlock lets commands connect to
// the proxy's TCP port only, but on any address: another host listening on that port would
// be reachable. So where the machine allows it (NetNSWorks), the arm starts in a network
// namespace of its own whose only interface is loopback, listens on 127.0.0.1 at the
// proxy's port and relays each connection to the proxy's Unix socket (a path, which
// crosses network namespaces). Its user namespace maps the run's user to itself (every
// user, for root) and only owns the network namespace; the arm drops the capability it
// needed for loopback before it starts any child.
//
// Pid-reuse checks (childOf in link_linux.go, launch.StartedBy). The arm shares its domain
// with the commands, which may take it over: a pid it names must be its own child's, or
// kimi-run kills it; and kimi-run signals a group by number only while no process started
// later holds that number.
//
// The early entry. A launcher's start is on the path of a run's first child, and Go runs
// every package initialiser before main: internal/launch/early, which main imports for
// that alone, calls Serve from its own initialiser, before the flag parser's, the
// telemetry SDK's and the others', about half of them (docs/performance.md, "Starting a
// child"). Serve reads nothing from the environment, and makes itself not dumpable before
// it reads anything.
package launcher

// ServeArg is the first argument of kimi-run's launcher mode (see Serve).
const ServeArg = "__kimi-run-launcher"
