include "inc/latin1.aj";
policy p { }
