package beneath

import "golang.org/x/sys/unix"

// openat2Dir opens the directory rel below fd in one call, following no link and never
// leaving fd; ENOSYS on kernels before 5.6.
func openat2Dir(fd int, rel string) (int, error) {
	return unix.Openat2(fd, rel, &unix.OpenHow{Flags: dirFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}
