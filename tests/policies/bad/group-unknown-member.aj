group @mine ptrace kexec_lod;
policy p { syscalls deny @mine; }
