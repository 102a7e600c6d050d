import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function TanCreatePage() {
  return <FeaturePending titleKey="pages.tanCreate" />;
}
