# Only a policy is included: a policy written into a project would have the
# compiler quote a secret beside it.
include ".env";
include "inc/README";
policy p { }
