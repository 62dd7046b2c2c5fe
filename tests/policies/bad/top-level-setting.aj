network none;
policy p { }
