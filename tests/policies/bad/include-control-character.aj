# A terminal would act on an escape sequence in a quoted line.
include "inc/escape.aj";
policy p { }
