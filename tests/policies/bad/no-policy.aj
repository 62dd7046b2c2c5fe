include "base.aj";
