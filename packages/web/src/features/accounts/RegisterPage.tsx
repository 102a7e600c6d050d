import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function RegisterPage() {
  return <FeaturePending titleKey="pages.register" />;
}
