// Package files holds the one rule for every file balloc reads or writes
// on a user's behalf.
//
// Inputs (OpenInput, ReadInput) are regular files only: a FIFO, a device or
// a socket would block the run or never end, so it is refused in one line.
// Every input opened is remembered, by device and inode, for the outputs.
//
// Outputs (NewOutput) are checked before the work starts, and refused in one
// line when they cannot be written: a folder, a file that is one of the
// run's inputs (the same file, by device and inode, whatever its name) or
// another output of the run, a path through a file, a name the file system
// cannot hold, no permission. Missing folders are made when the output is
// written (their names checked before the work too). An existing regular file is refused too,
// unless the command's --force is given; then it is replaced whole,
// atomically (a temporary file in the same folder, synced, renamed over
// it), keeping its permissions, so a run that fails or is interrupted
// leaves the old file as it was. A device, FIFO or other special file is
// written in place (opened for writing, never created, truncated or
// renamed over): --cpuprofile /dev/null leaves /dev/null a device. A
// symbolic link is followed: the file it names is written, the link stays.
package files
