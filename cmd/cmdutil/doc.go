// Package cmdutil is what every command of dorisdiag shares, as cli/cli's
// pkg/cmdutil: the Factory (the streams, the root's flags, the lazy Source,
// the HTTP fetch options), Common (the inputs every command's options
// struct embeds: -o, the gate, Emit, --watch), IOStreams, the exit codes and
// usage errors (ExitCodeFor maps an error to its exit code in one place),
// the pager, and the object-name and time arguments. A command package
// (cmd/streams, cmd/mv, …) imports it and never another command package.
package cmdutil
