policy a extends a { }
