include "inc/dir.aj";
policy p { }
