# '..' would leave the folder an include is searched in.
include "../../../../etc/shadow";
include "inc/../include-absolute.aj";
policy p { }
