policy base { }
policy p extends bsae { }
