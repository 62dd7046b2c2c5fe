group @mount read;
policy p { }
