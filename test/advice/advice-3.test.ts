import { adviceSuite } from './suite.js';

adviceSuite(2, 4);
