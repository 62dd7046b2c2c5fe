include "nosuch.aj";
policy p { }
