include "inc";
policy p { }
