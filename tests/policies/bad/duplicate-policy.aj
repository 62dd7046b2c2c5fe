policy p { }
policy p { }
