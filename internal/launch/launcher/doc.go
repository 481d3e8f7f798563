// Package launcher is kimi-run's launcher process on Linux: the launch.Starter that starts
// a run's children, confines those that ask for it, and ends whatever they leave when the
// run ends. Its parts, in the order a start meets them:
//
// Why a process of its own (remote_linux.go). A child started by kimi-run itself is
// orphaned to init when kimi-run dies, with all it forked: nobody ends it. So the children
// are started by a small launcher process, kimi-run's own image run with ServeArg (New, at
// the first child, never before), in a session of its own, with an empty environment and
// no parent-death signal. It makes itself the child subreaper (PR_SET_CHILD_SUBREAPER,
// serve_linux.go): whatever a child starts, however it forks or setsids, stays below it.
// When kimi-run ends — in order (Close), by a signal, or by SIGKILL (its socket closes) —
// the launcher ends the whole tree (endAll; tree_linux.go stops and kills every
// descendant) and exits. A child dies with the launcher (parent-death signal), but for
// one that is to survive the run (Spec.Survive).
//
// The wire (wire_linux.go, link_linux.go). kimi-run and a launcher talk over a
// SOCK_SEQPACKET socket pair, one JSON message per datagram; a child's descriptors 0-2
// travel beside its start as SCM_RIGHTS, and a message too large for a datagram (a huge
// environment) in a memfd. Each request carries an id its answer repeats; a child's end
// comes as an exit message with its wait status and CPU time, which finishes its Proc.
// kimi-run reads its launchers' answers small (no descriptors, no bodies), and gives up a
// launcher that does not answer or is seen stopped (link.watch): it ends its tree itself
// and starts a new one at the next start.
//
// Cgroups (cgroup_linux.go). Where it can, the launcher makes a cgroup v2 for the run
// below its own and starts every child in it (CLONE_INTO_CGROUP): cgroup.kill then ends
// everything at once, and pids.max (or a cgroup v1 pids hierarchy its serving thread
// joins) bounds the tasks under the sandbox (Launcher.TaskLimit). Without one (Keep,
// KIMI_RUN_CGROUP=off, no right to make one) the tree walk ends the run alone.
//
// The confined arm (serve_linux.go startBox, ns_linux.go, mounts_linux.go). A confined
// child comes from a second launcher process, started by the first in the box role, which
// confines itself (Landlock, sandbox.Confine) before it starts anything, on the one OS
// thread every fork happens on, so all confined children share one domain. Under
// Policy.Namespaces it starts in a user and mount namespace of its own: it makes every
// mount read-only but the writable dirs, gives the run a /tmp of its own, and starts an
// init that mounts a /proc of a new process namespace, which its children join; each part
// the machine refuses is left out, with a note (launch.Launcher.Warn). A survivors' arm
// starts the children that outlive the run, outside its cgroup.
//
// The netns relay (netns_linux.go). Under --allow-host the arm starts in a network
// namespace of its own, where 127.0.0.1 at the proxy's port is relayed to the proxy's
// Unix socket and nothing else is reachable; NetNSWorks probes whether the machine allows
// it.
//
// Pid-reuse checks (link_linux.go childOf, launch.StartedBy). The arm shares its domain
// with the commands, which may take it over: a pid it names must be its own child's,
// started after the request, or kimi-run kills it. kimi-run signals a child's group by
// number only while no later process holds that number.
//
// The early entry. A launcher is on the path of a run's first child, so it must start
// fast: internal/launch/early, imported by main for that alone, calls Serve from a package
// initialiser, before the packages only a run needs have initialised.
package launcher

// ServeArg is the first argument of kimi-run's launcher mode (see Serve).
const ServeArg = "__kimi-run-launcher"
