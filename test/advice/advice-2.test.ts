import { adviceSuite } from './suite.js';

adviceSuite(1, 4);
