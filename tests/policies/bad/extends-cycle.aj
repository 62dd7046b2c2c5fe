policy a extends b { }
policy b extends a { }
