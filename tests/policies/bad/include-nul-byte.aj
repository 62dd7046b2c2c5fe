include "inc/nul-byte.aj";
policy p { }
