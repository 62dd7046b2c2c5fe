include "inc/long-line.aj";
policy p { }
