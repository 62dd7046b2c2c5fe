# A link in an include folder is never followed, wherever it points:
# outside the folder (the repository's README), through a linked folder,
# or back inside it.
include "inc/outside.aj";
include "inc/up/policies/good/features.aj";
include "inc/inside.aj";
policy p { }
