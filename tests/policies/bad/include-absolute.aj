# An include is searched beside the including file and in the -I folders,
# never anywhere else: the compiler would quote /etc/shadow in its errors,
# and read /dev/zero for ever.
include "/etc/shadow";
include "/dev/zero";
policy p { }
